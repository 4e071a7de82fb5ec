/**
 * Every /system endpoint of docs/system-paths.md §/system (except recordings), on the device's `Headset`
 * interface. `createApp` registers {@link systemPlugin} with a {@link SystemPluginOptions}.
 */
import type { FastifyInstance } from 'fastify';
import type { Headset } from '../../device/headset.js';
import type { HostMetrics } from '../../metrics/host-metrics.js';
import type { ServiceMetrics } from '../../metrics/service-metrics.js';
import type { JobRegistry } from '../../jobs/jobs.js';
import type { SettingsStore } from '../../store/settings-store.js';
import type { ConfigEntries } from '../../store/config-entries.js';
import type { EventHub } from '../../events/hub.js';
import type { LiveSockets } from '../../events/live-sockets.js';
import { clockRoutes } from './clock.js';
import { configRoutes } from './config.js';
import { debugRoutes } from './debug.js';
import { eegRoutes } from './eeg.js';
import { eventRoutes } from './events.js';
import { healthRoutes } from './health.js';
import { hostnameRoutes } from './hostname.js';
import { impedanceRoutes } from './impedance.js';
import { imuRoutes } from './imu.js';
import { jobRoutes } from './jobs.js';
import { ledRoutes } from './leds.js';
import { motorRoutes } from './motors.js';
import { statusRoutes } from './status.js';

/**
 * The services the /system routes call, built by the service's composition root (src/services.ts)
 * and handed to {@link systemPlugin}; the plugin builds nothing.
 */
export interface SystemContext {
  /** The headset every route drives (simulated, replay or hardware). */
  readonly device: Headset;
  /**
   * The settings store: the one whose `hostname()` the security hook uses, so that a renamed device
   * is accepted in `Host` at once; one store for the whole service (it caches the hostname).
   */
  readonly settings: SettingsStore;
  /** Apps' key-value entries (the maker's SDK config store), listed by GET /system/config. */
  readonly entries: ConfigEntries;
  /** The device's event hub (GET /system/events), shared with the guide plugin. */
  readonly hub: EventHub;
  /** The device's long operations (shared with the guide plugin, which starts them). */
  readonly jobs: JobRegistry;
  readonly hostMetrics: HostMetrics;
  readonly serviceMetrics: ServiceMetrics;
  /** The clients of WebSocket GET /system/events (the hub's events). */
  readonly eventSockets: LiveSockets;
  /** The clients of WebSocket GET /system/sensors/eeg/stream (the device's frames). */
  readonly eegSockets: LiveSockets;
  /** The port actually served (healthz `httpPort`); read at each request. */
  readonly httpPort: () => number;
  /** The service version (status, version). */
  readonly version: string;
  /** Stream counts for GET /system/status. */
  readonly streams: () => { total: number; running: number };
  /** When the service started (ms since the epoch) for `uptimeSeconds`. */
  readonly startedAt: number;
}

/** What {@link systemPlugin} is handed. */
export type SystemPluginOptions = SystemContext;

/** Registers every /system route on the services it is handed. */
export function systemPlugin(app: FastifyInstance, context: SystemPluginOptions): void {
  eegRoutes(app, context);
  impedanceRoutes(app, context);
  motorRoutes(app, context);
  ledRoutes(app, context);
  imuRoutes(app, context);
  healthRoutes(app, context);
  hostnameRoutes(app, context);
  clockRoutes(app);
  configRoutes(app, context);
  statusRoutes(app, context);
  debugRoutes(app, context);
  eventRoutes(app, context);
  jobRoutes(app, context);
}

export { SettingsStore } from '../../store/settings-store.js';
