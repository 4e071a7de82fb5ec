/**
 * What the /system routes are handed: the services the composition root (src/service/services.ts) builds.
 * In a file of its own so that the routes and the plugin that registers them (index.ts) both
 * import it, and neither imports the other.
 */
import type { Headset } from '../../device/headset.js';
import type { HostMetrics } from '../../platform/metrics/host-metrics.js';
import type { ServiceMetrics } from '../../platform/metrics/service-metrics.js';
import type { JobRegistry } from '../../platform/jobs/jobs.js';
import type { SettingsStore } from '../../platform/store/settings-store.js';
import type { ConfigEntries } from '../../platform/store/config-entries.js';
import type { EventHub } from '../../events/hub.js';
import type { LiveSockets } from '../../events/live-sockets.js';

/**
 * The services the /system routes call, built by the service's composition root (src/service/services.ts)
 * and handed to the plugin (`systemPlugin`, index.ts); the plugin builds nothing.
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
  /** Client networks spared the token (GET /system/status `tokenWaived`); absent when none is. */
  readonly tokenWaived?: TokenWaiver;
}

/** The client networks a service beyond loopback asks no token of (`--trust-network`). */
export interface TokenWaiver {
  readonly networks: readonly string[];
  /** `--trust-network-any` let a block through that covers every address or too many. */
  readonly any: boolean;
}
