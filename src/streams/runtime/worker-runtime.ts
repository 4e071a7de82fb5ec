/**
 * The StreamRuntime of headsetd: running streams spread over a small pool of worker threads
 * (docs/architecture.md §Data plane; `workers`, default one per core), so the API's event loop
 * never runs DSP and memory grows by a graph per stream, not by a V8 isolate. A node that throws
 * fails only its node (the graph supervises it). A stream whose code never yields stops its
 * worker's heartbeat: the worker is terminated, that stream fails (`stream_failed`), and the
 * worker's other streams start again on another worker (`stream_restarted`, the reason in their
 * nodes' `lastError`). A worker that dies with no node to blame (it crashed, ran out of heap)
 * fails all its streams.
 *
 * `status()` is synchronous: it answers the latest snapshot the worker pushed (every
 * `snapshotIntervalMs`, soon after every state change, and with every command's reply, so after
 * any awaited call it reflects that call). Logs are kept here, per node, the last 500 lines, from a
 * stream's start until its next start. A stream that is not running answers undefined, with one
 * exception: while `stream_failed` listeners run, `status()` answers the failed stream's last known
 * status (the culprit node in `error` with the reason as `lastError`, the others `terminated`), so
 * a listener can keep it; the stream's nodes' logs also get the reason.
 */
import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import { HeadsetdError } from '../../core/errors.js';
import { type AccessPolicy, LOOPBACK_ONLY } from '../../core/access-policy.js';
import type { StreamDefinition } from '../../core/stream-model.js';
import {
  NodeFailureError,
  type RuntimeEvent,
  type RuntimeStreamStatus,
  type StreamRuntime,
} from './stream-runtime.js';
import type { Frame } from '../../core/frame.js';
import { LogRing } from './log-ring.js';
import { postMortem, withReason } from './dead-status.js';
import { StatusBoard } from './status-board.js';
import type { NodeRef, StatusPush } from './thread-messages.js';
import type { DeviceFeed, NodeLogLine } from '../../core/node.js';
import type { StreamWorker } from './stream-worker.js';
import type { StreamThread } from '../../core/stream-thread.js';
import { WorkerPool } from './worker-pool.js';
import { errorMessage } from '../../core/error-message.js';
import { ListenerSet } from '../../core/listener-set.js';

export interface WorkerRuntimeOptions {
  /**
   * The module each stream's worker runs: one that calls streams/runtime/host.ts's `runStreamHost` with the
   * executables it knows (the service's is streams/executables/stream-host-entry.ts's STREAM_HOST_ENTRY).
   */
  workerEntry: URL;
  /** The service's data directory (`--data-dir`), passed to nodes. */
  dataDir: string;
  /** Directories external executables may run from. */
  executablesDirs: string[];
  /**
   * The rules the streams' sockets apply (websocket nodes), read at each start: the service's own
   * (platform/security/access.ts). Without it they answer loopback names and their own origin only.
   */
  access?: () => AccessPolicy;
  /** The headset's EEG, for eeg-source nodes; without it they fail to start with a clear message. */
  device?: DeviceFeed;
  /**
   * The thread that produces the device's frames, when it can host streams: a stream that reads the
   * device (`readsDevice`) runs there while that thread has room (worker-pool.ts), unless modules of
   * extra executables are loaded (their code would run in the device's thread).
   */
  deviceThread?: () => StreamThread | undefined;
  /** Whether a stream reads the device (has an eeg-source node). */
  readsDevice?: (stream: StreamDefinition) => boolean;
  logger?: Logger;
  /** Modules exporting `factories: Record<string, NodeFactory>`, loaded in every stream's worker (tests, embedders). */
  extraExecutableModules?: string[];
  /** A worker silent this long is terminated (default 3000 ms). */
  heartbeatTimeoutMs?: number;
  /** Status push period (default 250 ms). */
  snapshotIntervalMs?: number;
  /**
   * The most data-plane workers (default: the number of cores). None runs while no stream does (an
   * idle service holds no isolate of ~15 MiB for nothing). A starting stream joins a worker whose
   * event loop was busy less than `spreadAtUtilization` of the last 2 s or so (the one with the
   * fewest streams); only when every worker is busier is another spawned, until there are this
   * many; then streams share them (the fewest streams first).
   */
  workers?: number;
  /**
   * Busy share (0–1, default 0.5) from which a worker takes no more streams while the pool may
   * grow. 0 spreads streams over new workers as soon as they start (isolation first; each worker
   * is a V8 isolate of ~12 MiB or more); 1 fills one worker before another (memory first).
   */
  spreadAtUtilization?: number;
  /** A worker left without streams this long is ended, giving its memory back (default 30 s). */
  idleWorkerMs?: number;
}

export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 3000;
export const DEFAULT_SNAPSHOT_INTERVAL_MS = 250;
export const DEFAULT_IDLE_WORKER_MS = 30_000;
export const DEFAULT_SPREAD_AT_UTILIZATION = 0.5;
/** Starting may wait for external programs and devices; each node has 10 s of its own (node-runner.ts). */
const START_TIMEOUT_MS = 60_000;
const COMMAND_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

/**
 * A running stream, main side: what the runtime keeps of a stream it runs. Its worker-side
 * counterpart is host.ts's HostedStream; the manager's record of any stream is streams/entry.ts's StreamEntry.
 */
interface RunningStream {
  worker: StreamWorker;
  /** The definition it runs (the last applied), to start it again on another worker. */
  definition: StreamDefinition;
  status: RuntimeStreamStatus | undefined;
  started: boolean;
  stopping: boolean;
  /** Why it was restarted on another worker, shown as its nodes' lastError until they have one. */
  restartedBecause?: string;
  /** The status board its worker writes each snapshot period, and the last snapshot taken in. */
  board?: StatusBoard;
  seq?: number;
}

export class WorkerRuntime implements StreamRuntime {
  private readonly streams = new Map<string, RunningStream>();
  /** Post-mortem statuses, present only while `stream_failed` listeners run. */
  private readonly failed = new Map<string, RuntimeStreamStatus>();
  private readonly logRings = new Map<string, Map<string, LogRing>>();
  private readonly listeners = new ListenerSet<RuntimeEvent>((error) => {
    this.options.logger?.error({ err: error }, 'a runtime event listener threw');
  });
  /** Tap listeners by stream, then node; they outlive starts and stops (see StreamRuntime.tap). */
  private readonly taps = new Map<string, Map<string, ListenerSet<Frame>>>();

  /** The data-plane workers; dead ones are dropped when a stream needs a worker. */
  private readonly pool: WorkerPool;
  private closed = false;

  constructor(private readonly options: WorkerRuntimeOptions) {
    this.pool = new WorkerPool({
      spawn: {
        entry: options.workerEntry,
        device: options.device,
        heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS,
        snapshotIntervalMs: options.snapshotIntervalMs ?? DEFAULT_SNAPSHOT_INTERVAL_MS,
      },
      maxWorkers: Math.max(1, options.workers ?? availableParallelism()),
      spreadAt: options.spreadAtUtilization ?? DEFAULT_SPREAD_AT_UTILIZATION,
      idleMs: options.idleWorkerMs ?? DEFAULT_IDLE_WORKER_MS,
      ...(options.deviceThread === undefined || (options.extraExecutableModules ?? []).length > 0
        ? {}
        : { deviceThread: options.deviceThread }),
    });
  }

  /** The worker a starting stream goes to: the device's thread first for one that reads the device. */
  private place(stream: StreamDefinition): StreamWorker {
    return this.pool.pick(this.options.readsDevice?.(stream) ?? false);
  }

  /** How many streams each live worker runs (tests, the status of the data plane); the device's thread's apart. */
  workerLoads(): number[] {
    return this.pool.loads();
  }

  /** How many streams run in the device's thread (see `deviceThread`). */
  besideDeviceLoad(): number {
    return this.pool.besideDeviceLoad();
  }

  /** Each live worker's recent busy share, 0–1 (see `spreadAtUtilization`). */
  workerUtilizations(): number[] {
    return this.pool.utilizations();
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
      definition: stream,
      status: undefined,
      started: false,
      stopping: false,
      worker: this.place(stream),
    };
    this.streams.set(streamId, entry);
    try {
      await this.run(entry, stream);
      entry.started = true;
      this.options.logger?.info({ streamId }, 'stream started');
    } catch (error) {
      if (this.streams.get(streamId) === entry) this.streams.delete(streamId);
      this.pool.release(entry.worker, streamId);
      throw error;
    }
  }

  /** Binds the stream to its worker and starts it there. */
  private async run(entry: RunningStream, stream: StreamDefinition): Promise<void> {
    const streamId = stream.id;
    const board = StatusBoard.memory();
    entry.board = new StatusBoard(board);
    entry.seq = 0;
    entry.worker.bind({
      streamId,
      board,
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
      onDeath: (message, culprit) => {
        this.onDeath(streamId, entry, message, culprit);
      },
      onTap: (nodeId, frame) => {
        this.deliverTap(streamId, nodeId, frame);
      },
    });
    await entry.worker.command(streamId, { op: 'start', definition: stream }, START_TIMEOUT_MS);
  }

  async stop(streamId: string): Promise<RuntimeStreamStatus | undefined> {
    const entry = this.streams.get(streamId);
    if (entry === undefined) return undefined;
    entry.stopping = true;
    const worker = entry.worker;
    try {
      await worker.command(streamId, { op: 'stop' }, STOP_TIMEOUT_MS);
    } catch (error) {
      this.options.logger?.warn(
        { streamId, err: error },
        'stream did not stop cleanly; terminating its worker',
      );
      // The worker's state is unknown: it goes, and its other streams start again elsewhere.
      if (worker.alive) {
        // Blamed on this stream (no node of it: nodeId ''), so the others start again elsewhere.
        await worker.terminate(`stream ${streamId} did not stop cleanly (${errorMessage(error)})`, {
          streamId,
          nodeId: '',
        });
      }
    } finally {
      if (this.streams.get(streamId) === entry) this.streams.delete(streamId);
      this.pool.release(worker, streamId);
    }
    this.options.logger?.info({ streamId }, 'stream stopped');
    // The stop's reply carried the status after the nodes stopped (accepted as it arrived).
    return entry.status;
  }

  async pause(streamId: string): Promise<void> {
    await this.running(streamId, 'pause').worker.command(streamId, { op: 'pause' }, COMMAND_TIMEOUT_MS);
  }

  async resume(streamId: string): Promise<void> {
    await this.running(streamId, 'resume').worker.command(streamId, { op: 'resume' }, COMMAND_TIMEOUT_MS);
  }

  async update(stream: StreamDefinition): Promise<void> {
    const entry = this.running(stream.id, 'update');
    try {
      await entry.worker.command(stream.id, { op: 'update', definition: stream }, START_TIMEOUT_MS);
    } catch (error) {
      // A node that could not start was applied all the same (it stays in `error`): the worker runs
      // this definition, which a restart elsewhere must take up (the manager may apply another).
      if (error instanceof NodeFailureError) entry.definition = stream;
      throw error;
    }
    entry.definition = stream;
  }

  async signalNode(
    streamId: string,
    nodeId: string,
    signal: string,
    payload: Record<string, unknown>,
  ): Promise<void> {
    const timeout = signal === 'start' || signal === 'restart' ? START_TIMEOUT_MS : COMMAND_TIMEOUT_MS;
    await this.running(streamId, signal).worker.command(
      streamId,
      { op: 'signal', nodeId, signal, payload },
      timeout,
    );
  }

  status(streamId: string): RuntimeStreamStatus | undefined {
    const entry = this.streams.get(streamId);
    return entry === undefined ? this.failed.get(streamId) : this.latest(entry);
  }

  /** The stream's latest status: the last posted, or its board's when that is newer. */
  private latest(entry: RunningStream): RuntimeStreamStatus | undefined {
    const written = entry.board?.read() as Pick<StatusPush, 'seq' | 'status'> | undefined;
    if (written !== undefined && written.seq > (entry.seq ?? 0)) this.take(entry, written);
    return entry.status;
  }

  logs(streamId: string, nodeId: string): readonly NodeLogLine[] {
    return this.logRings.get(streamId)?.get(nodeId)?.toArray() ?? [];
  }

  forget(streamId: string): void {
    if (this.streams.has(streamId)) return;
    this.logRings.delete(streamId);
  }

  onEvent(listener: (event: RuntimeEvent) => void): void {
    this.listeners.add(listener);
  }

  tap(streamId: string, nodeId: string, onFrame: (frame: Frame) => void): () => void {
    let nodes = this.taps.get(streamId);
    if (nodes === undefined) {
      nodes = new Map();
      this.taps.set(streamId, nodes);
    }
    let listeners = nodes.get(nodeId);
    if (listeners === undefined) {
      listeners = new ListenerSet<Frame>((error) => {
        this.options.logger?.error({ err: error, streamId, nodeId }, 'a tap listener threw');
      });
      nodes.set(nodeId, listeners);
    }
    const set = listeners;
    const remove = set.add(onFrame);
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      remove();
      const current = this.taps.get(streamId);
      if (set.size === 0 && current?.get(nodeId) === set) current.delete(nodeId);
      if (current?.size === 0) this.taps.delete(streamId);
    };
  }

  feed(streamId: string, nodeId: string, frame: Frame): boolean {
    const entry = this.streams.get(streamId);
    if (entry === undefined || !entry.started || entry.stopping) return false;
    return entry.worker.feed(streamId, nodeId, frame);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.streams.keys()].map((id) => this.stop(id)));
    await this.pool.close();
  }

  abort(): void {
    this.closed = true;
    this.pool.abort();
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

  /** A snapshot of the stream's status, posted or read from its board, when it is newer. */
  private take(entry: RunningStream, { seq, status }: Pick<StatusPush, 'seq' | 'status'>): void {
    if (seq < (entry.seq ?? 0)) return;
    entry.seq = seq;
    entry.status = entry.restartedBecause === undefined ? status : withReason(status, entry.restartedBecause);
  }

  private accept(streamId: string, entry: RunningStream, push: StatusPush): void {
    this.take(entry, push);
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

  private onDeath(
    streamId: string,
    entry: RunningStream,
    message: string,
    culprit: NodeRef | undefined,
  ): void {
    if (this.streams.get(streamId) !== entry) return;
    if (!entry.started || entry.stopping) {
      this.streams.delete(streamId);
      return; // the pending start or stop reports it
    }
    // Another stream's node hung the worker: this one is innocent and starts again elsewhere.
    if (culprit !== undefined && culprit.streamId !== streamId && !this.closed) {
      void this.restart(streamId, entry, message, culprit);
      return;
    }
    this.fail(streamId, entry, message, culprit?.nodeId);
  }

  private async restart(
    streamId: string,
    entry: RunningStream,
    message: string,
    culprit: NodeRef,
  ): Promise<void> {
    const who =
      culprit.nodeId === ''
        ? `stream ${culprit.streamId}`
        : `node ${culprit.nodeId} of stream ${culprit.streamId}`;
    const reason = `restarted on another worker: ${who} hung the worker they shared (${message})`;
    entry.restartedBecause = reason;
    entry.worker = this.place(entry.definition);
    try {
      await this.run(entry, entry.definition);
    } catch (error) {
      if (this.streams.get(streamId) !== entry) return;
      this.pool.release(entry.worker, streamId);
      this.fail(streamId, entry, `${reason}, and could not start again: ${errorMessage(error)}`, undefined);
      return;
    }
    if (this.streams.get(streamId) !== entry) return;
    this.logToNodes(streamId, Object.keys(entry.status?.nodes ?? {}), `stream ${streamId} ${reason}`);
    this.options.logger?.warn({ streamId, culprit }, `stream ${streamId} ${reason}`);
    this.emit({ type: 'stream_restarted', streamId, message: `Stream ${streamId} was ${reason}.` });
  }

  private logToNodes(streamId: string, nodeIds: readonly string[], text: string): void {
    const rings = this.logRings.get(streamId);
    if (rings === undefined) return;
    for (const id of nodeIds) {
      let ring = rings.get(id);
      if (ring === undefined) {
        ring = new LogRing();
        rings.set(id, ring);
      }
      ring.push({ timestamp: Date.now(), stream: 'event', line: text });
    }
  }

  private fail(streamId: string, entry: RunningStream, message: string, nodeId: string | undefined): void {
    this.streams.delete(streamId);
    const text = `stream ${streamId} failed: ${message}`;
    this.failed.set(streamId, postMortem(this.latest(entry), nodeId, text));
    this.logToNodes(streamId, nodeId === undefined ? Object.keys(entry.status?.nodes ?? {}) : [nodeId], text);
    this.options.logger?.error({ streamId, nodeId }, text);
    try {
      this.emit({ type: 'stream_failed', streamId, message: text });
    } finally {
      this.failed.delete(streamId);
    }
  }

  private deliverTap(streamId: string, nodeId: string, frame: Frame): void {
    this.taps.get(streamId)?.get(nodeId)?.emit(frame);
  }

  private emit(event: RuntimeEvent): void {
    if (event.type === 'node_crashed') {
      this.options.logger?.warn(
        { streamId: event.streamId, nodeId: event.nodeId, willRestart: event.willRestart },
        `node crashed: ${event.message}`,
      );
    }
    this.listeners.emit(event);
  }
}
