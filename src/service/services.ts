/**
 * The composition root's assembly of the services the HTTP plugins are handed: the /system
 * services (config entries, jobs, host and service metrics, live sockets) and the guide services
 * (impedance store and sessions, latest impedance, motor locks, schedules, LED visualization),
 * built once on one device, hub, store and settings, and the quick-stream services (registry,
 * start and stop, forwarding) on the stream manager and its runtime; `server.ts` calls it and the tests that build
 * the plugins without the whole service call it the same way. The plugins in api/ build nothing.
 */
import { mixedCaseMap } from '../core/electrodes.js';
import { applyConfig, DEFAULT_DEVICE_CONFIG, effectiveConfig } from '../device/settings/config.js';
import { ConfigEntries } from '../platform/store/config-entries.js';
import type { Headset } from '../device/headset.js';
import { HostMetrics } from '../platform/metrics/host-metrics.js';
import { ImpedanceStore } from '../platform/store/impedance-store.js';
import { jobsFor } from '../platform/jobs/jobs.js';
import { ServiceMetrics } from '../platform/metrics/service-metrics.js';
import type { SettingsStore } from '../platform/store/settings-store.js';
import type { EventHub } from '../events/hub.js';
import { liveFrameSockets, liveSockets } from '../events/live-sockets.js';
import { SocketFanout } from '../streams/runtime/socket-fanout.js';
import { currentConfig, type GuidesContext } from '../guides/context.js';
import { ImpedanceSessions } from '../guides/impedance-sessions.js';
import { LatestImpedance } from '../guides/latest-impedance.js';
import { LedVisualization } from '../guides/led-visualization.js';
import { MotorLocks } from '../guides/motor-locks.js';
import { ImpedanceSchedules } from '../guides/schedules.js';
import type { GuidesPluginOptions } from '../api/guides/index.js';
import type { SystemContext, TokenWaiver } from '../api/system/index.js';
import type { QuickStreamsPluginOptions } from '../api/quick-streams.js';
import { QuickForwarding } from '../streams/quick/forwarding.js';
import { QuickRegistry } from '../streams/quick/registry.js';
import { QuickStreams } from '../streams/quick/service.js';
import type { StreamRuntime } from '../streams/runtime/stream-runtime.js';
import type { Db } from '../platform/store/database.js';
import type { StreamManager } from '../streams/manager.js';

/** Where a warning of the assembly goes (the service's logger). */
export interface WarnLog {
  warn(details: object, message: string): void;
}

/**
 * Applies the stored device configuration to the device; a stored configuration that no longer
 * validates is ignored (the defaults apply), with a warning in the log.
 */
export async function applyStoredConfig(
  device: Headset,
  settings: SettingsStore,
  log: WarnLog,
): Promise<void> {
  let config = DEFAULT_DEVICE_CONFIG;
  let overrides = settings.configOverrides();
  try {
    // Nothing stored (every first start): the defaults, which need no check (a test checks them);
    // compiling the configuration's validator took 6 ms of a start (docs/performance.md).
    if (Object.keys(overrides).length > 0) config = effectiveConfig(overrides);
  } catch (error) {
    log.warn({ err: error }, 'The stored device configuration is invalid; using the defaults.');
    overrides = {};
  }
  try {
    await applyConfig(device, config, overrides);
  } catch (error) {
    // A configuration stored for another device (gain 24 kept from the simulated headset, on an
    // LSL stream whose gain is its own) must not stop the service: the device keeps its defaults.
    log.warn(
      { err: error },
      "The stored EEG configuration does not suit this device; it keeps the device's own defaults.",
    );
  }
}

export interface DeviceServicesOptions {
  device: Headset;
  /** The device's hub of live events, shared by the /system and guide services. */
  events: EventHub;
  /** The service's store: impedance history and apps' config entries live there. */
  db: Db;
  /** The one settings store of the service (it caches the hostname the security hook reads). */
  settings: SettingsStore;
  /** The data dir: healthz reports the storage of its file system. */
  dataDir: string;
  /** The port actually served; read at each request. */
  httpPort: () => number;
  version: string;
  /** Stream counts for GET /system/status; `{total: 0, running: 0}` when omitted. */
  streams?: () => { total: number; running: number };
  /** When the service started (ms since the epoch); now when omitted. */
  startedAt?: number;
  /** Where sysfs is mounted, for the CPU temperature (default `/sys`; tests pass a fake tree). */
  sysRoot?: string;
  /** Client networks spared the token, for GET /system/status; none when omitted. */
  tokenWaived?: TokenWaiver;
}

export interface DeviceServices {
  system: SystemContext;
  guides: GuidesPluginOptions;
  /** Stops what runs (jobs stop their motors where they are), unsubscribes, closes the sockets. */
  close(): Promise<void>;
}

/** Builds the services of the /system and guide plugins on one device. */
export function deviceServices(options: DeviceServicesOptions): DeviceServices {
  const { device, events: hub, settings } = options;
  const jobs = jobsFor(device);
  const thermal = device.thermal;
  const system: SystemContext = {
    device,
    settings,
    entries: new ConfigEntries(options.db),
    hub,
    jobs,
    hostMetrics: new HostMetrics(options.dataDir, {
      ...(options.sysRoot === undefined ? {} : { sysRoot: options.sysRoot }),
      // Where the machine has no sensor, the device's thermal model (a simulated or replayed
      // headset's) stands in, fed the real load; a live device has none: no figure then.
      ...(thermal === undefined
        ? {}
        : { cpuTemperatureModel: (load: number) => thermal.processorCelsius(load) }),
    }),
    serviceMetrics: new ServiceMetrics(),
    eventSockets: liveSockets((send) => hub.on(send)),
    eegSockets: liveFrameSockets((send) => device.eeg.onFrame(send)),
    httpPort: options.httpPort,
    version: options.version,
    streams: options.streams ?? (() => ({ total: 0, running: 0 })),
    startedAt: options.startedAt ?? Date.now(),
    ...(options.tokenWaived === undefined ? {} : { tokenWaived: options.tokenWaived }),
  };

  const cleanups: (() => void)[] = [];
  const store = new ImpedanceStore(options.db);
  const latest = new LatestImpedance(hub);
  const impedanceSockets = new SocketFanout();
  const sessions = new ImpedanceSessions(device, store, (session, reading) => {
    if (session.mode === 'continuous')
      impedanceSockets.send({ timestamp: reading.timestamp, values: mixedCaseMap(reading.values) });
  });
  const context: GuidesContext = {
    device,
    hub,
    store,
    settings,
    latest,
    sessions,
    locks: new MotorLocks(),
    jobs,
    config: () => currentConfig(settings),
    onClose: (cleanup) => cleanups.push(cleanup),
  };
  const schedules = new ImpedanceSchedules(context);
  const guides: GuidesPluginOptions = {
    context,
    schedules,
    ledVisualization: new LedVisualization(context),
    impedanceSockets,
  };

  return {
    system,
    guides,
    async close() {
      system.eventSockets.close();
      system.eegSockets.close();
      system.serviceMetrics.close();
      // Running operations stop with the service (their motors are stopped where they are).
      await jobs.close();
      schedules.close();
      sessions.close();
      latest.close();
      impedanceSockets.closeAll();
      for (const cleanup of cleanups) cleanup();
    },
  };
}

export interface QuickStreamServicesOptions {
  /** The service's stream manager: quick streams are ordinary streams of it. */
  manager: StreamManager;
  /** The runtime that manager drives: `tap` brings the frames to this thread, `feed` ingests. */
  runtime: Pick<StreamRuntime, 'tap' | 'feed'>;
  /** Hosts a forward may go to: the outbound allow-list (default: loopback only, platform/security/outbound-hosts.ts). */
  pipeAllowedHosts?: readonly string[];
  /** The token sent as `?token=` to a forward's target when the request names none. */
  pipeToken?: string;
  /** Unsent bytes per WebSocket client above which it loses frames (default 1 MiB). */
  clientSendLimitBytes?: number;
  /** How long POST /stream/start and /stop wait for the transition (default 20 s). */
  transitionTimeoutMs?: number;
  /** The channels the device acquires now: an EEG quick stream naming others is refused first. */
  acquiredChannels?: () => readonly string[];
  /** The channels the device plays, as its frames name them: what an EEG quick stream may name. */
  deviceChannels?: () => readonly string[];
}

export interface QuickStreamServices extends QuickStreamsPluginOptions {
  /** Closes every quick stream's clients and forward and stops following the manager. */
  close(): void;
}

/** Builds the quick-stream services over the stream manager and its runtime. */
export function quickStreamServices(options: QuickStreamServicesOptions): QuickStreamServices {
  const registry = new QuickRegistry(options.manager, options.runtime, options.clientSendLimitBytes);
  return {
    streams: new QuickStreams(options.manager, registry, {
      ...(options.transitionTimeoutMs === undefined
        ? {}
        : { transitionTimeoutMs: options.transitionTimeoutMs }),
      ...(options.acquiredChannels === undefined ? {} : { acquiredChannels: options.acquiredChannels }),
      ...(options.deviceChannels === undefined ? {} : { deviceChannels: options.deviceChannels }),
    }),
    forwarding: new QuickForwarding(registry, options.manager, options.runtime, {
      ...(options.pipeAllowedHosts === undefined ? {} : { allowedHosts: options.pipeAllowedHosts }),
      ...(options.pipeToken === undefined ? {} : { token: options.pipeToken }),
    }),
    close() {
      registry.close();
    },
  };
}
