/**
 * The main thread's handle on one data-plane worker, which runs many streams: spawns it (or opens a
 * host of streams in the device's own thread: {@link StreamThread}), gives it
 * streams (`bind`) and takes them back (`release`), sends each stream's commands and matches the
 * replies, routes status pushes, events and tap frames to their stream, serves the worker's device
 * subscriptions, and watches its heartbeat: a counter in shared memory that the worker bumps every
 * snapshot period (shared memory, not messages, so that a busy main thread never mistakes queued
 * messages for silence). A worker whose counter stands still for `heartbeatTimeoutMs` (a node loops
 * forever), that crashes or exits on its own is terminated, and each of its streams is told once
 * through `onDeath`, with the node that hung the thread when the worker knew it.
 */
import { createRequire } from 'node:module';
import { type EventLoopUtilization, performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort, type Transferable, Worker } from 'node:worker_threads';
import { STREAM_THREAD_HEAP_LIMIT_MB, type StreamThread } from '../../core/stream-thread.js';
import { type ErrorCode, HeadsetdError } from '../../core/errors.js';
import type { AccessPolicy } from '../../core/access-policy.js';
import { DeviceForwarder } from './device-bridge.js';
import { signalGroup, trackGroup, untrackGroup } from './external/process-group.js';
import type { Frame } from '../../core/frame.js';
import {
  type FromHost,
  type HostBoot,
  type HostCommand,
  type NodeRef,
  type StatusPush,
  type ToHost,
} from './thread-messages.js';
import { toWire } from '../../core/frame-wire.js';
import type { DeviceFeed } from '../../core/node.js';
import { NodeFailureError, type RuntimeEvent } from './stream-runtime.js';
import { wallClockOffsetMs } from '../../core/wall-clock.js';
import { joinRound, ROUND_MS } from '../../core/shared-rounds.js';

/** A worker that has not said a word this long after spawning is considered dead. */
export const WORKER_BOOT_TIMEOUT_MS = 30_000;

/** How long a worker's busy share is read over (in whole watchdog periods, at least one). */
const UTILIZATION_WINDOW_MS = 2000;

/** How a worker is spawned: the same for every worker of a runtime. */
export interface WorkerSpawnOptions {
  /** The worker's entry module (see WorkerRuntimeOptions.workerEntry). */
  entry: URL;
  device: DeviceFeed | undefined;
  heartbeatTimeoutMs: number;
  snapshotIntervalMs: number;
}

/**
 * How a StreamWorker reaches one of its streams (a RunningStream of worker-runtime.ts): what its
 * worker needs to run it, and where its pushes, events and the worker's death go. Not a stream itself.
 */
export interface StreamBinding {
  streamId: string;
  dataDir: string;
  executablesDirs: readonly string[];
  extraModules: readonly string[];
  /** The rules the stream's sockets apply (websocket nodes). */
  access: AccessPolicy;
  /** The memory of the stream's status board (status-board.ts), which the worker writes. */
  board: SharedArrayBuffer;
  onPush(push: StatusPush): void;
  onEvent(event: RuntimeEvent): void;
  /**
   * Called once when the worker died without being asked to: the reason for a person, and the
   * node (of this or another stream) that was running when it hung, if known.
   */
  onDeath(message: string, culprit: NodeRef | undefined): void;
  /** A tap node's frame arrived (its samples in a buffer now owned by this thread). */
  onTap?(nodeId: string, frame: Frame): void;
}

/**
 * The main thread's line to a host of streams: a worker thread spawned for it, or a port into a
 * thread that runs the host beside its own work (the device's: {@link StreamThread}).
 */
export interface HostLine {
  post(message: ToHost, transfer?: readonly Transferable[]): void;
  onMessage(listener: (message: FromHost) => void): void;
  /** Hears, once, that the host's thread ended without being asked to (it crashed, exited), and why. */
  onEnd(listener: (reason: string) => void): void;
  /** The event loop utilization of the host's thread (as `Worker.performance`'s). */
  eventLoopUtilization(
    utilization1?: EventLoopUtilization,
    utilization2?: EventLoopUtilization,
  ): EventLoopUtilization;
  /** Whether the line keeps the process alive (while the host runs streams). */
  ref(): void;
  unref(): void;
  /**
   * Ends the host; with `kill`, its thread as well (the host hung, or did not stop a stream): a
   * spawned worker always goes. Resolves when it is gone.
   */
  end(kill: boolean): Promise<void>;
}

/**
 * A line over `channel` to a host in the thread `performance` is of: the worker itself (a worker
 * spawned for the host alone), or a port into a thread that runs the host beside its own work.
 */
function hostLine(
  channel: Worker | MessagePort,
  performance: Worker['performance'],
  ending: Pick<HostLine, 'onEnd' | 'end'>,
): HostLine {
  return {
    post: (message, transfer) => {
      channel.postMessage(message, transfer);
    },
    onMessage: (listener) => {
      channel.on('message', listener);
    },
    eventLoopUtilization: (utilization1, utilization2) =>
      performance.eventLoopUtilization(utilization1, utilization2),
    ref: () => {
      channel.ref();
    },
    unref: () => {
      channel.unref();
    },
    ...ending,
  };
}

/** The line to a worker spawned for the host alone. */
function workerLine(worker: Worker): HostLine {
  return hostLine(worker, worker.performance, {
    onEnd: (listener) => {
      worker.on('error', (error) => {
        listener(`its worker crashed: ${error.message}`);
      });
      worker.on('exit', (code) => {
        listener(`its worker exited unexpectedly (code ${code})`);
      });
    },
    end: async () => {
      await worker.terminate();
    },
  });
}

/** The line to a host opened in `thread` (the device's), on a port of its own. */
function threadLine(thread: StreamThread, boot: HostBoot): HostLine {
  const { port1, port2 } = new MessageChannel();
  const hosted = thread.openHost(port2, boot);
  return hostLine(port1, hosted.performance, {
    onEnd: (listener) => {
      hosted.onEnd(listener);
      // A thread that ends takes its end of the port with it.
      port1.on('close', () => {
        listener('the thread it ran in ended');
      });
    },
    end: async (kill) => {
      port1.close();
      await hosted.end(kill);
    },
  });
}

/**
 * How often the watchdog reads a worker's heartbeat: a third of the timeout, at most ROUND_MS. With
 * the default timeout (3 s) that is the API thread's round, which the device's housekeeping runs
 * in already, so supervising workers adds no wake-up of the main thread (core/shared-rounds.ts);
 * a hang is told within the timeout and one period. Shorter timeouts (tests) get a round of their own.
 */
function watchdogPeriodMs(heartbeatTimeoutMs: number): number {
  return Math.max(50, Math.min(ROUND_MS, Math.round(heartbeatTimeoutMs / 3)));
}

/**
 * Starts the worker's entry module (a module calling host.ts's runStreamHost): as it is when
 * compiled, or, for TypeScript sources (tests, `tsx`), through tsx's loader, registered inside the
 * worker because Node 20 does not apply `--import` from a worker's execArgv.
 */
function spawnHost(entry: URL, boot: HostBoot): Worker {
  // A small young generation: frames are short-lived and small (a 10 ms block), so 2 MiB of nursery
  // keeps scavenges short while each worker holds ~10 MiB less than V8's default; frame latency
  // was unchanged by it (docs/performance.md).
  const resourceLimits = { maxOldGenerationSizeMb: STREAM_THREAD_HEAP_LIMIT_MB, maxYoungGenerationSizeMb: 2 };
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData: boot, resourceLimits });
  const tsxApi = createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const bootstrap = `import(${JSON.stringify(pathToFileURL(tsxApi).href)})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })
    .catch((error) => { setImmediate(() => { throw error; }); });`;
  return new Worker(bootstrap, { eval: true, workerData: boot, resourceLimits });
}

interface PendingCommand {
  streamId: string;
  resolve(push: StatusPush): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class StreamWorker {
  private readonly host: HostLine;
  private readonly pending = new Map<number, PendingCommand>();
  private nextId = 1;
  private readonly spawnedAt = performance.now();
  /** Last heartbeat count seen, and when it was seen to change (performance.now(), ms). */
  private lastBeat = 0;
  private lastBeatChange = 0;
  /** Ends this worker's turn in the watchdog's rounds. */
  private readonly unwatch: () => void;
  private readonly forwarder: DeviceForwarder;
  private readonly busy = new SharedArrayBuffer(8);
  private nodeOrder: NodeRef[] = [];
  /** Child process groups of the worker's external nodes, killed if the worker ends with them alive. */
  private readonly processGroups = new Set<number>();
  private ended = false;
  private readonly bindings = new Map<string, StreamBinding>();
  /** Event loop utilization read at each watchdog period since the first heartbeat, the last few. */
  private readonly eluSamples: EventLoopUtilization[] = [];
  /** How many watchdog periods make UTILIZATION_WINDOW_MS. */
  private readonly utilizationWindow: number;

  /**
   * Spawns a worker for the host; or, given `thread`, opens the host in that thread (the device's),
   * whose frames its streams then take without a port.
   */
  constructor(
    private readonly options: WorkerSpawnOptions,
    thread?: StreamThread,
  ) {
    const boot: HostBoot = {
      busy: this.busy,
      snapshotIntervalMs: options.snapshotIntervalMs,
      hasDevice: options.device !== undefined,
      wallClockOffsetMs: wallClockOffsetMs(),
    };
    this.host = thread === undefined ? workerLine(spawnHost(options.entry, boot)) : threadLine(thread, boot);
    this.forwarder = new DeviceForwarder(
      options.device,
      (message, transfer) => {
        if (!this.ended) this.host.post(message, transfer);
      },
      (event) => {
        this.bindings.get(event.streamId)?.onEvent(event);
      },
      thread !== undefined,
    );
    this.host.onMessage((message) => {
      this.onMessage(message);
    });
    this.host.onEnd((reason) => {
      this.die(reason);
    });
    const period = watchdogPeriodMs(options.heartbeatTimeoutMs);
    this.utilizationWindow = Math.max(1, Math.round(UTILIZATION_WINDOW_MS / period));
    this.unwatch = joinRound(period, () => {
      this.checkHeartbeat();
    });
    // A worker without streams never keeps the process alive; one running a stream does (see bind).
    this.host.unref();
  }

  get alive(): boolean {
    return !this.ended;
  }

  /** How many streams the worker runs. */
  get load(): number {
    return this.bindings.size;
  }

  /**
   * The share of the last UTILIZATION_WINDOW_MS (whole watchdog periods) its event loop was
   * busy, 0 to 1: the pool's measure of whether the worker has room for another stream. The boot
   * (loading the built-ins) is left out: it reads 0 until the worker's first heartbeat. Precise
   * sleeps count as busy (they block the loop), so a worker of many paced streams reads up to
   * ~0.25 with little else to do.
   */
  get utilization(): number {
    const oldest = this.eluSamples[0];
    const newest = this.eluSamples.at(-1);
    if (oldest === undefined || newest === undefined || oldest === newest) return 0;
    return this.host.eventLoopUtilization(newest, oldest).utilization;
  }

  /** Gives the worker a stream to run. Its commands may follow at once. */
  bind(binding: StreamBinding): void {
    if (this.bindings.has(binding.streamId)) throw new Error(`stream ${binding.streamId} is bound already`);
    this.bindings.set(binding.streamId, binding);
    this.host.ref();
    const message: ToHost = {
      kind: 'init',
      init: {
        streamId: binding.streamId,
        dataDir: binding.dataDir,
        executablesDirs: [...binding.executablesDirs],
        extraModules: [...binding.extraModules],
        access: binding.access,
        board: binding.board,
      },
    };
    this.host.post(message);
  }

  /** Forgets a stream (stopped, or failed to start: the worker has let it go already). */
  release(streamId: string): void {
    this.bindings.delete(streamId);
    if (this.bindings.size === 0) this.host.unref();
  }

  /** Sends a stream's command; resolves with the status push that came with its reply. */
  command(streamId: string, command: HostCommand, timeoutMs: number): Promise<StatusPush> {
    if (this.ended) {
      return Promise.reject(new HeadsetdError('invalid_state', `stream ${streamId} is not running.`));
    }
    const id = this.nextId++;
    return new Promise<StatusPush>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new HeadsetdError(
            'internal_error',
            `stream ${streamId} did not answer '${command.op}' within ${timeoutMs / 1000} s.`,
          ),
        );
      }, timeoutMs);
      this.pending.set(id, { streamId, resolve, reject, timer });
      const message: ToHost = { kind: 'command', id, streamId, command };
      this.host.post(message);
    });
  }

  /**
   * Hands a frame to an ingest node of one of the worker's streams. The samples are copied once
   * and the copy's buffer transferred, so the caller's frame stays intact. False when the worker
   * has ended or does not run the stream.
   */
  feed(streamId: string, nodeId: string, frame: Frame): boolean {
    if (this.ended || !this.bindings.has(streamId)) return false;
    const wire = toWire(frame);
    const message: ToHost = { kind: 'ingest-frame', streamId, nodeId, frame: wire };
    this.host.post(message, [wire.data.buffer as ArrayBuffer]);
    return true;
  }

  /**
   * Ends the worker at the runtime's request: quietly (the service closing), or with `reason` and
   * the stream to blame (a stop that did not complete), told to each stream through `onDeath`.
   * Resolves when the thread is gone.
   */
  async terminate(reason?: string, culprit?: NodeRef): Promise<void> {
    if (reason !== undefined) this.die(reason, culprit);
    else if (!this.ended)
      this.end((streamId) => new HeadsetdError('invalid_state', `stream ${streamId} was stopped.`));
    await this.host.end(reason !== undefined);
  }

  private onMessage(message: FromHost): void {
    if (this.forwarder.handle(message)) return;
    switch (message.kind) {
      case 'snapshot':
        this.accept(message.streamId, message.push);
        return;
      case 'event':
        this.bindings.get(message.event.streamId)?.onEvent(message.event);
        return;
      case 'tap-frame':
        this.bindings.get(message.streamId)?.onTap?.(message.nodeId, message.frame);
        return;
      case 'process-group':
        // Tracked here and in this thread's registry, whose exit hook kills what is left if the
        // service exits without stopping the stream (process-group.ts).
        if (message.alive) {
          this.processGroups.add(message.pgid);
          trackGroup(message.pgid);
        } else {
          this.processGroups.delete(message.pgid);
          untrackGroup(message.pgid);
        }
        return;
      case 'reply': {
        this.accept(message.streamId, message.push);
        const waiter = this.pending.get(message.id);
        if (waiter === undefined) return;
        this.pending.delete(message.id);
        clearTimeout(waiter.timer);
        if (message.ok) {
          waiter.resolve(message.push);
        } else {
          const { code, message: text, details, nodeFailure } = message.error;
          waiter.reject(
            nodeFailure === undefined
              ? new HeadsetdError(code as ErrorCode, text, details)
              : new NodeFailureError(nodeFailure, code as ErrorCode, details),
          );
        }
        return;
      }
      default:
        return;
    }
  }

  private accept(streamId: string, push: StatusPush): void {
    this.nodeOrder = push.nodeOrder;
    this.bindings.get(streamId)?.onPush(push);
  }

  private busyNode(): NodeRef | undefined {
    const index = Atomics.load(new Int32Array(this.busy), 0);
    return index === 0 ? undefined : this.nodeOrder[index - 1];
  }

  private checkHeartbeat(): void {
    const now = performance.now();
    const beat = Atomics.load(new Int32Array(this.busy), 1);
    if (beat !== 0) {
      this.eluSamples.push(this.host.eventLoopUtilization());
      if (this.eluSamples.length > this.utilizationWindow + 1) this.eluSamples.shift();
    }
    if (beat !== this.lastBeat) {
      this.lastBeat = beat;
      this.lastBeatChange = now;
      return;
    }
    if (beat === 0) {
      if (now - this.spawnedAt > WORKER_BOOT_TIMEOUT_MS) {
        this.die(`its worker did not start within ${WORKER_BOOT_TIMEOUT_MS / 1000} s`);
      }
      return;
    }
    const silent = now - this.lastBeatChange;
    if (silent <= this.options.heartbeatTimeoutMs) return;
    const node = this.busyNode();
    const where =
      node === undefined ? '' : ` while node ${node.nodeId} of stream ${node.streamId} was running`;
    this.die(
      `its worker stopped responding for ${(silent / 1000).toFixed(1)} s${where} (code that never yields, e.g. an endless loop) and was terminated`,
    );
  }

  private die(reason: string, blamed?: NodeRef): void {
    if (this.ended) return;
    const culprit = blamed ?? this.busyNode();
    this.end((streamId) => new HeadsetdError('internal_error', `stream ${streamId} failed: ${reason}.`));
    void this.host.end(true);
    const bindings = [...this.bindings.values()];
    this.bindings.clear();
    for (const binding of bindings) binding.onDeath(reason, culprit);
  }

  private end(errorFor: (streamId: string) => Error): void {
    this.ended = true;
    for (const pgid of this.processGroups) {
      signalGroup(pgid, 'SIGKILL');
      untrackGroup(pgid);
    }
    this.processGroups.clear();
    this.unwatch();
    void this.forwarder.close();
    for (const waiter of this.pending.values()) {
      clearTimeout(waiter.timer);
      waiter.reject(errorFor(waiter.streamId));
    }
    this.pending.clear();
  }
}
