/**
 * Wires the service together: settings → store → device → runtime → stream manager → HTTP API,
 * and takes it apart again in the reverse order.
 */
import { mkdirSync } from 'node:fs';
import { hostname as osHostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createApp } from '../api/app.js';
import { guidesPlugin } from '../api/guides/index.js';
import { quickStreamsPlugin } from '../api/quick-streams.js';
import { outboundHosts } from '../platform/security/outbound-hosts.js';
import { recordingsPlugin } from '../api/recordings.js';
import { accessPolicy, type SecurityOptions } from '../api/security.js';
import { EventHub } from '../events/hub.js';
import { systemPlugin, type TokenWaiver } from '../api/system/index.js';
import { executablesDirs, isLoopbackHost, type Settings } from './config.js';
import { type DataDirLock, lockDataDir } from './data-dir-lock.js';
import { headsetFrameSource, subscriptionRefusal } from '../device/sources/frame-source.js';
import type { Headset } from '../device/headset.js';
import { isValidHostname, SettingsStore } from '../platform/store/settings-store.js';
import { instinctPlugin } from '../api/instinct/index.js';
import {
  DISCOVERY_PORT,
  type DiscoveryResponder,
  discoveryEnabled,
  startDiscoveryResponder,
} from './discovery.js';
import { tooBroad, trustedNetworks } from '../platform/security/trusted-networks.js';
import { openDevice } from '../device/kinds.js';
import { DEVICE_THREAD_ENTRY } from './device-thread-entry.js';
import { activeRecordingNames, recordingsDir, repairRecordings } from '../recordings/index.js';
import { WorkerRuntime } from '../streams/runtime/worker-runtime.js';
import { readsDevice } from '../streams/eeg-readers.js';
import { STREAM_HOST_ENTRY } from '../streams/executables/stream-host-entry.js';
import { closeDatabase, commitsPending, openDatabase } from '../platform/store/database.js';
import { StreamManager } from '../streams/manager.js';
import type { StreamRuntime } from '../streams/runtime/stream-runtime.js';
import { StreamStore } from '../streams/store.js';
import { forwardMarkersToRecorders } from './replay-markers.js';
import { ensureToken, tokenPath } from '../platform/security/token.js';
import { applyStoredConfig, deviceServices, quickStreamServices } from './services.js';
import { VERSION } from './version.js';
import { settleWithin } from '../core/deadline.js';

export interface ServerOptions {
  settings: Settings;
  logger: Logger;
  /** Replaces the worker-thread runtime (tests of the control plane). */
  runtime?: StreamRuntime;
  /**
   * The stream workers' entry module, for the worker-thread runtime (default: the service's own,
   * STREAM_HOST_ENTRY). Tests that run the service from its TypeScript sources hand the built
   * worker bundle, which boots without a TypeScript loader.
   */
  workerEntry?: URL;
  /** Replaces the device chosen by `settings.device` (tests). */
  device?: Headset;
  /**
   * Awaited before the port is opened, so that no request can start a child process earlier (the
   * command line's move into a cgroup of its own, which runs while the service starts).
   */
  beforeListen?: Promise<unknown>;
  /**
   * How long GET /system/status may serve the answer it made (default STATUS_MAX_AGE_MS): tests
   * lengthen it to show that what a request or the device changes is never served stale.
   */
  statusMaxAgeMs?: number;
  /** Where sysfs is mounted, for the CPU temperature (default `/sys`; tests pass a fake tree). */
  sysRoot?: string;
}

export interface RunningServer {
  /** `http://host:port` as actually bound. */
  url: string;
  port: number;
  app: FastifyInstance;
  manager: StreamManager;
  device: Headset;
  /** The device's hub of live events (GET /system/events). */
  events: EventHub;
  /** Set when the service listens beyond loopback. */
  token: { token: string; created: boolean } | undefined;
  /**
   * Stops streams (in parallel, within STREAMS_STOP_DEADLINE_MS, after which every node's process
   * group is killed), closes sockets, the device and the store, and releases the data directory.
   * Desired states are kept, so a restart resumes.
   */
  close(): Promise<void>;
  /**
   * For an exit that cannot wait any longer: SIGKILL to every node's process group and the data
   * directory released, synchronously. The process is expected to exit right after.
   */
  abort(): void;
}

/** How long streams have to stop at shutdown before their nodes' process groups are killed, ms. */
export const STREAMS_STOP_DEADLINE_MS = 3000;

/** Resolves true when `work` settled within `ms`, false when the time ran out first. */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  const ended = work.then(
    () => undefined,
    () => undefined,
  );
  return (await settleWithin(ended, ms)).done;
}

/** Stops every moving motor, synchronously, and logs which ones were moving. */
function stopMotors(device: Headset, logger: Logger, why: string): void {
  const motors = device.motors;
  if (motors === undefined) return;
  try {
    const stopped = motors.stopAll();
    if (stopped.length > 0) logger.warn({ electrodes: stopped }, `motors ${stopped.join(', ')} ${why}`);
  } catch (error) {
    logger.error({ err: error }, 'could not stop the motors');
  }
}

/**
 * The machine's own name, as its administrator set it, for the Host rule (docs/security.md
 * §Sockets); empty when it is no RFC 1123 name (a container's, for instance, may be anything).
 */
function machineHostname(): string {
  const name = osHostname();
  return isValidHostname(name) ? name.toLowerCase() : '';
}

/** The client networks spared the token, for GET /system/status; none on loopback (no token). */
function tokenWaiver(settings: Settings): { tokenWaived?: TokenWaiver } {
  if (settings.trustedNetworks.length === 0 || isLoopbackHost(settings.host)) return {};
  const any = settings.trustedNetworks.some((block) => tooBroad(block) !== undefined);
  return { tokenWaived: { networks: settings.trustedNetworks, any } };
}

/**
 * Says which clients are spared the token, so that the log does not only say the token is needed;
 * loudly for a block that `--trust-network-any` let through (docs/security.md §The maker's SDK on a
 * network).
 */
function announceTrustedNetworks(settings: Settings, port: number, logger: Logger): void {
  if (settings.trustedNetworks.length === 0 || isLoopbackHost(settings.host)) return;
  const broad = settings.trustedNetworks.flatMap((block) => {
    const why = tooBroad(block);
    return why === undefined ? [] : [`${block} ${why}`];
  });
  if (broad.length > 0) {
    logger.warn(
      { trustedNetworks: settings.trustedNetworks, trustNetworkAny: true },
      `WARNING: --trust-network-any: ${broad.join('; ')}. ANY client that reaches port ${port} from there drives the device, reads its EEG and runs streams WITHOUT the token.`,
    );
    return;
  }
  logger.warn(
    { trustedNetworks: settings.trustedNetworks },
    `requests from ${settings.trustedNetworks.join(', ')} need no token (--trust-network); every other client needs it`,
  );
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  // Before anything touches the store: a second service on the same data would restart its streams.
  const lock = lockDataDir(options.settings.dataDir);
  try {
    return await startLocked(options, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function startLocked(options: ServerOptions, lock: DataDirLock): Promise<RunningServer> {
  const { settings, logger } = options;
  const dirs = executablesDirs(settings);
  mkdirSync(dirs[0] ?? settings.dataDir, { recursive: true });
  const token = isLoopbackHost(settings.host) ? undefined : ensureToken(settings.dataDir);

  const startedAt = Date.now();
  // Recordings a crash left incomplete are made valid before any stream can write again.
  for (const repair of repairRecordings(recordingsDir(settings.dataDir))) {
    if (repair.outcome !== 'unchanged')
      logger.warn({ repair }, `recording ${repair.name}: ${repair.outcome}`);
  }
  // A live amplifier is opened here, before the service listens: a failure is a start-up error.
  const device =
    options.device ??
    (await openDevice(settings.device, {
      ...(settings.seed === undefined ? {} : { seed: settings.seed }),
      log: (message) => {
        logger.info(message);
      },
      lsl: settings.lsl,
      ...(DEVICE_THREAD_ENTRY === undefined ? {} : { deviceThread: DEVICE_THREAD_ENTRY }),
    }));
  // A headset keeps executing its last command: after a service was killed during a move, its
  // motors may still be driving. None may move without a client that asked for it: stop them first.
  stopMotors(device, logger, 'were moving when the service started (it ended during a move)');
  const db = openDatabase(settings.dataDir);
  const deviceSettings = new SettingsStore(db);
  let port = settings.port;
  const machine = machineHostname();
  // The one outbound allow-list: quick streams' forwards and osc nodes send only to these.
  const outbound = outboundHosts(settings.pipeAllowedHosts);
  // One set of rules for every socket: the API's port and each websocket node's.
  const security: SecurityOptions = {
    token: token?.token,
    ...(token === undefined ? {} : { tokenFile: tokenPath(settings.dataDir) }),
    allowedOrigins: settings.allowedOrigins,
    allowedHosts: settings.allowedHosts,
    // The machine's name, not the stored one: any client may set that (PATCH /system/hostname).
    hostname: () => machine,
    listenAddresses: [settings.host],
    port: () => port,
    trusted: trustedNetworks(settings.trustedNetworks, { any: settings.trustNetworkAny }),
    lsl: settings.lsl,
    outboundHosts: outbound,
  };
  const runtime =
    options.runtime ??
    new WorkerRuntime({
      workerEntry: options.workerEntry ?? STREAM_HOST_ENTRY,
      dataDir: settings.dataDir,
      executablesDirs: dirs,
      access: () => accessPolicy(security),
      device: headsetFrameSource(device),
      deviceThread: () => device.eeg.streamThread(),
      readsDevice,
      logger,
      ...(settings.workers === undefined ? {} : { workers: settings.workers }),
    });
  // One hub of live events per device: the /system and guide plugins share it (GET /system/events).
  const hub = new EventHub(device);
  const manager = new StreamManager(new StreamStore(db), runtime, {
    context: {
      executablesDirs: dirs,
      deviceChannels: () => device.eeg.channels().map((c) => c.name),
      outboundHosts: () => outbound,
      subscriptionRefusal: (channels) => subscriptionRefusal(device, channels),
    },
    onError: (message, error) => {
      logger.error({ err: error }, message);
    },
    onWarn: (message, details) => {
      logger.warn(details, message);
    },
    // Stream failures and node crashes are system events too (docs/system-paths.md §Events).
    onRuntimeEvent: (event) => {
      logger.warn({ event }, `runtime: ${event.type}`);
      if (event.type === 'stream_failed') {
        hub.system('stream_failed', 'error', `Stream ${event.streamId} failed: ${event.message}`);
      } else if (event.type === 'stream_restarted') {
        hub.system('stream_restarted', 'warning', event.message);
      } else if (event.type === 'stream_degraded') {
        hub.system(
          'stream_degraded',
          'warning',
          event.cause === 'held'
            ? `Stream ${event.streamId} runs degraded: node ${event.nodeId} holds its frames back: ${event.message}.`
            : `Stream ${event.streamId} runs degraded: node ${event.nodeId} is in error (${event.message}); frames through it are lost until it is restarted.`,
        );
      } else if (event.type === 'node_warning') {
        hub.system(
          'node_warning',
          'warning',
          `Node ${event.nodeId} of stream ${event.streamId}: ${event.message}`,
        );
      } else if (event.type === 'stream_recovered') {
        hub.system(
          'stream_recovered',
          'info',
          `Stream ${event.streamId} recovered: node ${event.nodeId} delivers every channel again (its next frame says discontinuity).`,
        );
      } else if (event.type === 'node_degraded' || event.type === 'node_recovered') {
        // Announced by the manager as stream_degraded / stream_recovered.
      } else {
        const what = event.willRestart ? 'it is restarted' : 'it stays in error';
        hub.system(
          'node_crashed',
          event.willRestart ? 'warning' : 'error',
          `Node ${event.nodeId} of stream ${event.streamId} crashed (${what}): ${event.message}`,
        );
      }
    },
  });

  // The composition root of the services the HTTP plugins are handed (src/service/services.ts).
  await applyStoredConfig(device, deviceSettings, logger);
  const services = deviceServices({
    device,
    events: hub,
    db,
    dataDir: settings.dataDir,
    httpPort: () => port,
    version: VERSION,
    ...(options.sysRoot === undefined ? {} : { sysRoot: options.sysRoot }),
    settings: deviceSettings,
    streams: () => ({
      total: manager.list().length,
      running: manager.list().filter((e) => e.state === 'running').length,
    }),
    startedAt,
    ...tokenWaiver(settings),
  });
  const quick = quickStreamServices({
    manager,
    runtime,
    pipeAllowedHosts: outbound,
    acquiredChannels: () => device.eeg.acquiredChannels(),
    deviceChannels: () => device.eeg.channels().map((c) => c.name),
  });
  // A stream transition that fails after its answer, on either face of the API, is announced
  // here (api/stream-signal.ts).
  const onLateFailure = (_streamId: string, message: string): void => {
    hub.system('stream_failed', 'error', message);
  };
  const app = await createApp({
    manager,
    logger,
    version: VERSION,
    security,
    onLateFailure,
    commitsPending: () => commitsPending(db),
    extraPlugins: [
      (scope, shared) => {
        systemPlugin(scope, services.system, {
          writes: shared.writes,
          ...(options.statusMaxAgeMs === undefined ? {} : { statusMaxAgeMs: options.statusMaxAgeMs }),
        });
      },
      (scope) => {
        // The services stop with the app, as its sockets do (jobs stop their motors where they are).
        scope.addHook('onClose', async () => {
          await services.close();
        });
        guidesPlugin(scope, services.guides);
      },
      // The maker's SDK paths (docs/instinct-sdk.md), on the same manager, device and store.
      (scope) => {
        instinctPlugin(scope, {
          manager,
          device,
          settings: deviceSettings,
          entries: services.system.entries,
          onLateFailure,
        });
      },
      (scope) => {
        scope.addHook('onClose', async () => {
          quick.close();
        });
        quickStreamsPlugin(scope, quick);
      },
      (scope) => {
        recordingsPlugin(scope, {
          dataDir: settings.dataDir,
          activeRecordings: () =>
            activeRecordingNames(manager.list().map((e) => runtime.status(e.definition.id))),
        });
      },
    ],
  });

  try {
    await options.beforeListen;
    await app.listen({ host: settings.host, port: settings.port });
  } catch (error) {
    await app.close();
    await manager.close();
    await device.close();
    await closeDatabase(db);
    throw error;
  }
  port = (app.server.address() as AddressInfo).port;
  announceTrustedNetworks(settings, port, logger);
  manager.restore();
  // The maker's SDK discovery, only where the API is reachable beyond loopback or the owner asked.
  let discovery: DiscoveryResponder | undefined;
  if (discoveryEnabled(settings.discovery, settings.host)) {
    try {
      discovery = await startDiscoveryResponder({
        hostname: () => deviceSettings.hostname(),
        apiPort: port,
        onError: (error) => {
          logger.warn({ err: error }, 'discovery: a reply could not be sent');
        },
      });
    } catch (error) {
      logger.warn(
        { err: error },
        `discovery: UDP port ${DISCOVERY_PORT} cannot be opened; the SDK will not find this device`,
      );
    }
  }
  // The replay device's markers (its file's annotations) go into the recordings of its EEG.
  const stopMarkers = forwardMarkersToRecorders(device, manager, logger);

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost(settings.host)}:${port}`,
    port,
    app,
    manager,
    device,
    events: hub,
    token,
    close() {
      // Before anything else: no motor keeps driving while streams and sockets wind down.
      if (closing === undefined) stopMotors(device, logger, 'were stopped: the service is shutting down');
      closing ??= (async () => {
        stopMarkers();
        // New requests are refused (503) from here on; streams stop meanwhile, not after.
        const httpClosed = app.close();
        const discoveryClosed = discovery?.close();
        const streamsStopped = manager.close();
        if (!(await within(streamsStopped, STREAMS_STOP_DEADLINE_MS))) {
          logger.warn(
            `streams did not stop within ${STREAMS_STOP_DEADLINE_MS / 1000} s; killing their nodes' process groups`,
          );
          runtime.abort?.();
          await streamsStopped.catch(() => undefined);
        }
        // A request still running (a download, a long poll) is cut rather than waited for.
        app.server.closeAllConnections();
        await httpClosed;
        await discoveryClosed;
        await device.close();
        await closeDatabase(db);
        lock.release();
      })();
      return closing;
    },
    abort() {
      stopMotors(device, logger, 'were stopped: the service is exiting at once');
      runtime.abort?.();
      lock.release();
    },
  };
}
