/**
 * Every /system endpoint of docs/system-paths.md §/system (except recordings), on the device's `Headset`
 * interface. `createApp` registers {@link systemPlugin} with a {@link SystemPluginOptions}.
 */
import type { FastifyInstance } from 'fastify';
import type { SystemPluginOptions } from '../plugin-options.js';
import type { EventHub } from '../../events/hub.js';
import type { Headset } from '../../device/headset.js';
import { HostMetrics } from '../../device/host-metrics.js';
import { ServiceMetrics } from '../../device/service-metrics.js';
import { type JobRegistry, jobsFor } from '../../device/jobs.js';
import { SettingsStore } from '../../device/settings-store.js';
import { ConfigEntries } from '../../device/config-entries.js';
import { clockRoutes } from './clock.js';
import { configRoutes } from './config.js';
import { debugRoutes } from './debug.js';
import { applyConfig, DEFAULT_DEVICE_CONFIG, effectiveConfig } from '../../device/config.js';
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

export type { SystemPluginOptions };

/** What the route modules share. */
export interface SystemContext {
  readonly device: Headset;
  readonly settings: SettingsStore;
  /** Apps' key-value entries (the maker's SDK config store), listed by GET /system/config. */
  readonly entries: ConfigEntries;
  readonly hub: EventHub;
  /** The device's long operations (shared with the guide plugin, which starts them). */
  readonly jobs: JobRegistry;
  readonly hostMetrics: HostMetrics;
  readonly serviceMetrics: ServiceMetrics;
  readonly httpPort: () => number;
  readonly version: string;
  readonly streams: () => { total: number; running: number };
  readonly startedAt: number;
  /** Registers cleanup for the app's close (sockets, subscriptions). */
  onClose(cleanup: () => void): void;
}

/**
 * Registers the /system routes and applies the stored device configuration to the device (a
 * stored configuration that no longer validates is ignored, with a warning in the log).
 */
export async function systemPlugin(app: FastifyInstance, options: SystemPluginOptions): Promise<void> {
  const cleanups: (() => void)[] = [];
  const context: SystemContext = {
    device: options.device,
    settings: options.settings,
    entries: new ConfigEntries(options.db),
    hub: options.events,
    jobs: jobsFor(options.device),
    hostMetrics: new HostMetrics(options.dataDir, {
      ...(options.sysRoot === undefined ? {} : { sysRoot: options.sysRoot }),
      // Where the machine has no sensor, the device's thermal model stands in, fed the real load.
      cpuTemperatureModel: (load) => options.device.thermal.processorCelsius(load),
    }),
    serviceMetrics: new ServiceMetrics(),
    httpPort: options.httpPort,
    version: options.version,
    streams: options.streams ?? (() => ({ total: 0, running: 0 })),
    startedAt: options.startedAt ?? Date.now(),
    onClose: (cleanup) => cleanups.push(cleanup),
  };
  app.addHook('onClose', async () => {
    for (const cleanup of cleanups) cleanup();
    context.serviceMetrics.close();
  });

  let config = DEFAULT_DEVICE_CONFIG;
  let overrides = context.settings.configOverrides();
  try {
    config = effectiveConfig(overrides);
  } catch (error) {
    app.log.warn({ err: error }, 'The stored device configuration is invalid; using the defaults.');
    overrides = {};
  }
  await applyConfig(options.device, config, overrides);

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

export { SettingsStore } from '../../device/settings-store.js';
