/**
 * The StreamRuntime of headsetd: every running stream in a worker thread of its own
 * (docs/architecture.md §Data plane), so the API's event loop never runs DSP, one stream's failure
 * never touches another, and a stream whose code never yields is terminated (`stream_failed`).
 *
 * `status()` is synchronous: it answers the latest snapshot the worker pushed (every
 * `snapshotIntervalMs`, soon after every state change, and with every command's reply, so after
 * any awaited call it reflects that call). Logs are kept here, per node, the last 500 lines, from a
 * stream's start until its next start. A stream that is not running answers undefined, with one
 * exception: while `stream_failed` listeners run, `status()` answers the failed stream's last known
 * status (the culprit node in `error` with the reason as `lastError`, the others `terminated`), so
 * a listener can keep it; the stream's nodes' logs also get the reason.
 */
import type { Logger } from 'pino';
import { HeadsetdError } from '../errors/catalog.js';
import { type AccessPolicy, LOOPBACK_ONLY } from '../core/access-policy.js';
import type { StreamDefinition } from '../core/stream-model.js';
import type { RuntimeEvent, RuntimeStreamStatus, StreamRuntime } from './port.js';
import type { Frame } from '../core/frame.js';
import { LogRing } from './log-ring.js';
import type { StatusPush } from './thread-messages.js';
import type { DeviceFrameSource, NodeLogLine } from '../core/node.js';
import { StreamWorker } from './stream-worker.js';

export interface WorkerRuntimeOptions {
  /**
   * The module each stream's worker runs: one that calls runtime/host.ts's `runStreamHost` with the
   * executables it knows (the service's is executables/stream-host-entry.ts's STREAM_HOST_ENTRY).
   */
  workerEntry: URL;
  /** The service's data directory (`--data-dir`), passed to nodes. */
  dataDir: string;
  /** Directories external executables may run from. */
  executablesDirs: string[];
  /**
   * The rules the streams' sockets apply (websocket nodes), read at each start: the service's own
   * (security/access.ts). Without it they answer loopback names and their own origin only.
   */
  access?: () => AccessPolicy;
  /** The headset's EEG, for eeg-source nodes; without it they fail to start with a clear message. */
  device?: DeviceFrameSource;
  logger?: Logger;
  /** Modules exporting `factories: Record<string, NodeFactory>`, loaded in every stream's worker (tests, embedders). */
  extraExecutableModules?: string[];
  /** A worker silent this long is terminated (default 3000 ms). */
  heartbeatTimeoutMs?: number;
  /** Status push period (default 250 ms). */
  snapshotIntervalMs?: number;
  /**
   * Workers kept booted in reserve (default 1): a start takes one and does not wait for the
   * runtime's modules to load (about a second on the headset). 0 spawns a worker per start.
   */
  warmWorkers?: number;
}

export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 3000;
export const DEFAULT_SNAPSHOT_INTERVAL_MS = 250;
export const DEFAULT_WARM_WORKERS = 1;
/** Starting may wait for external programs and devices; each node has 10 s of its own (node-runner.ts). */
const START_TIMEOUT_MS = 60_000;
const COMMAND_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

interface RunningStream {
  worker: StreamWorker;
  status: RuntimeStreamStatus | undefined;
  started: boolean;
  stopping: boolean;
}

export class WorkerRuntime implements StreamRuntime {
  private readonly streams = new Map<string, RunningStream>();
  /** Post-mortem statuses, present only while `stream_failed` listeners run. */
  private readonly failed = new Map<string, RuntimeStreamStatus>();
  private readonly logRings = new Map<string, Map<string, LogRing>>();
  private readonly listeners: ((event: RuntimeEvent) => void)[] = [];
  /** Tap listeners by stream, then node; they outlive starts and stops (see StreamRuntime.tap). */
  private readonly taps = new Map<string, Map<string, Set<(frame: Frame) => void>>>();

  /** Booted workers waiting for a stream, so that a start does not wait for module loading. */
  private readonly spares: StreamWorker[] = [];
  private closed = false;

  constructor(private readonly options: WorkerRuntimeOptions) {
    this.fillReserve();
  }

  async start(stream: StreamDefinition): Promise<void> {
    const streamId = stream.id;
    // A start that arrives while the service stops would spawn programs nobody stops.
    if (this.closed) {
      throw new HeadsetdError('invalid_state', `stream ${streamId} cannot start: the service is stopping.`);
    }
    if (this.streams.has(streamId)) {
      throw new HeadsetdError('invalid_state', `stream ${streamId} is already running.`, {
        state: 'running',
        signal: 'start',
        allowed: ['stop', 'pause'],
      });
    }
    this.logRings.set(streamId, new Map());
    const entry: RunningStream = {
      status: undefined,
      started: false,
      stopping: false,
      worker: this.takeWorker(),
    };
    entry.worker.bind({
      streamId,
      dataDir: this.options.dataDir,
      executablesDirs: this.options.executablesDirs,
      extraModules: this.options.extraExecutableModules ?? [],
      access: this.options.access?.() ?? LOOPBACK_ONLY,
      onPush: (push) => {
        this.accept(streamId, entry, push);
      },
      onEvent: (event) => {
        this.emit(event);
      },
      onDeath: (message, nodeId) => {
        this.onDeath(streamId, entry, message, nodeId);
      },
      onTap: (nodeId, frame) => {
        this.deliverTap(streamId, nodeId, frame);
      },
    });
    this.streams.set(streamId, entry);
    try {
      await entry.worker.command({ op: 'start', definition: stream }, START_TIMEOUT_MS);
      entry.started = true;
      this.options.logger?.info({ streamId }, 'stream started');
    } catch (error) {
      if (this.streams.get(streamId) === entry) this.streams.delete(streamId);
      await entry.worker.terminate();
      throw error;
    }
  }

  async stop(streamId: string): Promise<void> {
    const entry = this.streams.get(streamId);
    if (entry === undefined) return;
    entry.stopping = true;
    try {
      await entry.worker.command({ op: 'stop' }, STOP_TIMEOUT_MS);
    } catch (error) {
      this.options.logger?.warn(
        { streamId, err: error },
        'stream did not stop cleanly; terminating its worker',
      );
    } finally {
      if (this.streams.get(streamId) === entry) this.streams.delete(streamId);
      await entry.worker.terminate();
    }
    this.options.logger?.info({ streamId }, 'stream stopped');
  }

  async pause(streamId: string): Promise<void> {
    await this.running(streamId, 'pause').worker.command({ op: 'pause' }, COMMAND_TIMEOUT_MS);
  }

  async resume(streamId: string): Promise<void> {
    await this.running(streamId, 'resume').worker.command({ op: 'resume' }, COMMAND_TIMEOUT_MS);
  }

  async update(stream: StreamDefinition): Promise<void> {
    await this.running(stream.id, 'update').worker.command(
      { op: 'update', definition: stream },
      START_TIMEOUT_MS,
    );
  }

  async signalNode(
    streamId: string,
    nodeId: string,
    signal: string,
    payload: Record<string, unknown>,
  ): Promise<void> {
    const timeout = signal === 'start' || signal === 'restart' ? START_TIMEOUT_MS : COMMAND_TIMEOUT_MS;
    await this.running(streamId, signal).worker.command({ op: 'signal', nodeId, signal, payload }, timeout);
  }

  status(streamId: string): RuntimeStreamStatus | undefined {
    return this.streams.get(streamId)?.status ?? this.failed.get(streamId);
  }

  logs(streamId: string, nodeId: string): readonly NodeLogLine[] {
    return this.logRings.get(streamId)?.get(nodeId)?.toArray() ?? [];
  }

  onEvent(listener: (event: RuntimeEvent) => void): void {
    this.listeners.push(listener);
  }

  tap(streamId: string, nodeId: string, onFrame: (frame: Frame) => void): () => void {
    let nodes = this.taps.get(streamId);
    if (nodes === undefined) {
      nodes = new Map();
      this.taps.set(streamId, nodes);
    }
    let listeners = nodes.get(nodeId);
    if (listeners === undefined) {
      listeners = new Set();
      nodes.set(nodeId, listeners);
    }
    // A listener added twice must be removable twice: wrap it so each call has its own entry.
    const entry = (frame: Frame): void => {
      onFrame(frame);
    };
    listeners.add(entry);
    return () => {
      const current = this.taps.get(streamId);
      const set = current?.get(nodeId);
      if (set?.delete(entry) !== true) return;
      if (set.size === 0) current?.delete(nodeId);
      if (current?.size === 0) this.taps.delete(streamId);
    };
  }

  feed(streamId: string, nodeId: string, frame: Frame): boolean {
    const entry = this.streams.get(streamId);
    if (entry === undefined || !entry.started || entry.stopping) return false;
    return entry.worker.feed(nodeId, frame);
  }

  async close(): Promise<void> {
    this.closed = true;
    const spares = this.spares.splice(0);
    await Promise.all([
      ...[...this.streams.keys()].map((id) => this.stop(id)),
      ...spares.map((worker) => worker.terminate()),
    ]);
  }

  abort(): void {
    this.closed = true;
    // terminate() kills the worker's process groups synchronously, before its first await.
    for (const entry of this.streams.values()) void entry.worker.terminate();
    for (const spare of this.spares.splice(0)) void spare.terminate();
  }

  /** A booted worker from the reserve (a new one if none is alive); the reserve is refilled. */
  private takeWorker(): StreamWorker {
    let worker: StreamWorker | undefined;
    while (worker === undefined && this.spares.length > 0) {
      const candidate = this.spares.shift();
      if (candidate?.alive === true) worker = candidate;
    }
    worker ??= this.spawnWorker();
    this.fillReserve();
    return worker;
  }

  private spawnWorker(): StreamWorker {
    return new StreamWorker({
      entry: this.options.workerEntry,
      device: this.options.device,
      heartbeatTimeoutMs: this.options.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS,
      snapshotIntervalMs: this.options.snapshotIntervalMs ?? DEFAULT_SNAPSHOT_INTERVAL_MS,
    });
  }

  private fillReserve(): void {
    const wanted = this.options.warmWorkers ?? DEFAULT_WARM_WORKERS;
    while (!this.closed && this.spares.length < wanted) this.spares.push(this.spawnWorker());
  }

  private running(streamId: string, signal: string): RunningStream {
    const entry = this.streams.get(streamId);
    if (entry === undefined || !entry.started || entry.stopping) {
      throw new HeadsetdError('invalid_state', `stream ${streamId} is not running.`, {
        state: 'stopped',
        signal,
        allowed: ['start'],
      });
    }
    return entry;
  }

  private accept(streamId: string, entry: RunningStream, push: StatusPush): void {
    entry.status = push.status;
    const rings = this.logRings.get(streamId);
    if (rings === undefined) return;
    for (const { nodeId, lines } of push.logs) {
      let ring = rings.get(nodeId);
      if (ring === undefined) {
        ring = new LogRing();
        rings.set(nodeId, ring);
      }
      for (const line of lines) ring.push(line);
    }
  }

  private onDeath(streamId: string, entry: RunningStream, message: string, nodeId: string | undefined): void {
    if (this.streams.get(streamId) !== entry) return;
    this.streams.delete(streamId);
    if (!entry.started || entry.stopping) return; // the pending start or stop reports it
    const text = `stream ${streamId} failed: ${message}`;
    this.failed.set(streamId, postMortem(entry.status, nodeId, text));
    const rings = this.logRings.get(streamId);
    for (const id of nodeId === undefined ? Object.keys(entry.status?.nodes ?? {}) : [nodeId]) {
      let ring = rings?.get(id);
      if (ring === undefined && rings !== undefined) {
        ring = new LogRing();
        rings.set(id, ring);
      }
      ring?.push({ timestamp: Date.now(), stream: 'event', line: text });
    }
    this.options.logger?.error({ streamId, nodeId }, text);
    try {
      this.emit({ type: 'stream_failed', streamId, message: text });
    } finally {
      this.failed.delete(streamId);
    }
  }

  private deliverTap(streamId: string, nodeId: string, frame: Frame): void {
    const listeners = this.taps.get(streamId)?.get(nodeId);
    if (listeners === undefined) return;
    for (const listener of listeners) {
      try {
        listener(frame);
      } catch (error) {
        this.options.logger?.error({ err: error, streamId, nodeId }, 'a tap listener threw');
      }
    }
  }

  private emit(event: RuntimeEvent): void {
    if (event.type === 'node_crashed') {
      this.options.logger?.warn(
        { streamId: event.streamId, nodeId: event.nodeId, willRestart: event.willRestart },
        `node crashed: ${event.message}`,
      );
    }
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.options.logger?.error({ err: error }, 'a runtime event listener threw');
      }
    }
  }
}

/** The last status of a dead stream: the node that hung it in `error`, every other node `terminated`. */
function postMortem(
  last: RuntimeStreamStatus | undefined,
  culprit: string | undefined,
  message: string,
): RuntimeStreamStatus {
  const nodes: RuntimeStreamStatus['nodes'] = {};
  for (const [id, node] of Object.entries(last?.nodes ?? {})) {
    const guilty = culprit === undefined || id === culprit;
    nodes[id] = {
      ...node,
      state: guilty ? 'error' : 'terminated',
      metrics: guilty
        ? { ...node.metrics, errorCount: node.metrics.errorCount + 1, lastError: message }
        : { ...node.metrics, queueDepth: 0 },
    };
  }
  return { nodes, pipes: last?.pipes ?? {} };
}
