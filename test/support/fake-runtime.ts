/**
 * An in-memory StreamRuntime for control-plane tests: records every call, can be told to fail or to
 * hold a transition open, and reports node states like the real one. It runs no node, but models
 * what the runtime contract (test/contracts/runtime-contract.ts) asks of every runtime: frames fed
 * to an `ingest` node reach the `tap` nodes it pipes into, an `eeg-source` reports its device's
 * conditions as `node_degraded`/`node_recovered`, the test nodes `test-throw`, `test-loop` (fed by
 * a source) and `test-warn` crash, hang and warn (test/runtime/fixtures/test-nodes.ts), node
 * signals pause and resume their node, and nothing starts after `close` or `abort`.
 */
import { createServer } from 'node:net';
import type { Frame } from '../../src/core/frame.js';
import { ListenerSet } from '../../src/core/listener-set.js';
import type { DeviceFeed, NodeLogLine } from '../../src/core/node.js';
import { frameSourceOf } from '../../src/core/frame-subscription.js';
import type { StreamDefinition } from '../../src/core/stream-model.js';
import {
  type NodeFailure,
  NodeFailureError,
  type RuntimeEvent,
  type RuntimeStreamStatus,
  type StreamRuntime,
} from '../../src/streams/runtime/stream-runtime.js';
import type { NodeState } from '../../src/core/stream-model.js';
import { HeadsetdError } from '../../src/core/errors.js';
import { deviceSubscriptions, modelledEvents, tapsFedBy } from './fake-runtime-nodes.js';

export interface FakeRuntimeOptions {
  /** The headset's EEG, for eeg-source nodes (their conditions become node events). */
  device?: DeviceFeed;
}

export type GatedOp = 'start' | 'stop' | 'pause' | 'update';

export class FakeRuntime implements StreamRuntime {
  constructor(private readonly options: FakeRuntimeOptions = {}) {}

  readonly calls: { op: string; streamId: string; detail?: unknown }[] = [];
  readonly running = new Map<string, { definition: StreamDefinition; paused: boolean }>();
  /**
   * Per running stream: node states the modelled nodes left (a crashed `test-throw` in error, a
   * node paused by its own signal).
   */
  private readonly modelled = new Map<string, Map<string, { state: NodeState; lastError: string | null }>>();
  /** Per stream, then node: log lines beyond the start line (a `test-pass` node's custom signals). */
  private readonly nodeLogs = new Map<string, Map<string, NodeLogLine[]>>();
  /** Per running stream: what ends its device subscriptions. */
  private readonly releases = new Map<string, (() => void)[]>();
  /** The last status of a stream that failed, while `stream_failed` listeners run. */
  private readonly failed = new Map<string, RuntimeStreamStatus>();
  /** Set by close and abort, as the real runtime: no stream starts after them. */
  private closed = false;
  /** A listener that throws keeps no other from an event (as on the real runtime, which logs it). */
  readonly listeners = new ListenerSet<RuntimeEvent>(() => undefined);
  /** Tap listeners, keyed `streamId/nodeId`; tests push frames through `emitTap`. */
  readonly taps = new Map<string, ListenerSet<Frame>>();
  /** Every frame handed to `feed` while its stream ran. */
  readonly fed: { streamId: string; nodeId: string; frame: Frame }[] = [];
  /** Node ids whose start fails, with the reason (or the whole failure, to name a config field). */
  failStart = new Map<string, string | Omit<NodeFailure, 'nodeId'>>();
  /** Node states reported instead of running/paused (a node left in `error` while the rest runs). */
  readonly nodeStates = new Map<string, { state: NodeState; lastError: string | null }>();
  failUpdate: string | undefined;
  /** When set, start() waits for this promise (to observe `starting`). */
  gate: Promise<void> | undefined;
  /** Per operation: when set, the call waits for the promise (to observe `stopping`, `pausing` ...). */
  readonly gates = new Map<GatedOp, Promise<void>>();

  /** Holds every later call of `op` open until the returned function is called. */
  hold(op: GatedOp): () => void {
    let release: () => void = () => undefined;
    this.gates.set(
      op,
      new Promise<void>((resolve) => {
        release = () => {
          this.gates.delete(op);
          resolve();
        };
      }),
    );
    return release;
  }

  /** The operations called so far, for one stream (`start`, `stop`, `update` ...). */
  ops(streamId: string): string[] {
    return this.calls.filter((c) => c.streamId === streamId).map((c) => c.op);
  }

  /**
   * Like the real websocket node: a node asking for a port another socket holds fails to start,
   * with the runtime port's typed failure naming the node and the port. The port is tried for real
   * on 127.0.0.1 and released at once.
   */
  private async probePorts(nodes: readonly StreamDefinition['nodes'][number][]): Promise<void> {
    for (const node of nodes) {
      const port = node.config?.port;
      if (node.executable !== 'websocket' || typeof port !== 'number' || port === 0) continue;
      const server = createServer();
      const free = await new Promise<boolean>((resolve) => {
        server.once('error', () => {
          resolve(false);
        });
        server.listen(port, '127.0.0.1', () => {
          resolve(true);
        });
      });
      if (free) await new Promise((resolve) => server.close(resolve));
      else throw new NodeFailureError({ nodeId: node.id, reason: `port ${port} is already in use`, port });
    }
  }

  /** Like the real runtime: operations on a stream it does not run are refused. */
  private mustRun(streamId: string, signal: string) {
    const r = this.running.get(streamId);
    if (r === undefined) {
      throw new HeadsetdError('invalid_state', `stream ${streamId} is not running.`, {
        state: 'stopped',
        signal,
        allowed: ['start'],
      });
    }
    return r;
  }

  async start(stream: StreamDefinition): Promise<void> {
    this.calls.push({ op: 'start', streamId: stream.id, detail: stream.nodes.map((n) => n.id) });
    if (this.closed) {
      throw new HeadsetdError('invalid_state', `stream ${stream.id} cannot start: the service is stopping.`);
    }
    this.forgotten.delete(stream.id);
    if (!this.running.has(stream.id)) this.nodeLogs.delete(stream.id);
    if (this.running.has(stream.id)) {
      throw new HeadsetdError('invalid_state', `stream ${stream.id} is already running.`, {
        state: 'running',
        signal: 'start',
        allowed: ['stop', 'pause'],
      });
    }
    if (this.gate !== undefined) await this.gate;
    await this.gates.get('start');
    await this.probePorts(stream.nodes);
    for (const node of stream.nodes) {
      const failure = this.failStart.get(node.id);
      if (failure !== undefined) {
        // The runtime port's typed failure, as the real runtime throws it.
        throw new NodeFailureError(
          typeof failure === 'string'
            ? { nodeId: node.id, reason: failure }
            : { nodeId: node.id, ...failure },
        );
      }
    }
    this.running.set(stream.id, { definition: stream, paused: false });
    this.modelled.set(stream.id, new Map());
    this.releases.set(
      stream.id,
      await deviceSubscriptions(
        this.options.device === undefined ? undefined : frameSourceOf(this.options.device),
        stream,
        (event) => {
          if (this.running.has(stream.id)) this.emit(event);
        },
      ),
    );
    for (const event of modelledEvents(stream)) {
      // Nodes crash or warn once running, after the start has answered, as on worker threads.
      setImmediate(() => {
        if (!this.running.has(stream.id)) return;
        if (event.type === 'node_crashed' && !event.willRestart)
          this.modelled.get(stream.id)?.set(event.nodeId, { state: 'error', lastError: event.message });
        this.emit(event);
      });
    }
    const hanging = stream.nodes.find(
      (n) => n.executable === 'test-loop' && stream.pipes.some((p) => p.destination === n.id),
    );
    if (hanging !== undefined) {
      setImmediate(() => {
        if (this.running.get(stream.id)?.definition === stream) this.hang(stream.id, hanging.id);
      });
    }
  }

  /**
   * As the real runtime when a node hangs its worker: the stream ends, and while the
   * `stream_failed` listeners run its status is the last one, the culprit in `error`, the other
   * nodes `terminated`.
   */
  private hang(streamId: string, culprit: string): void {
    const last = this.status(streamId);
    if (last === undefined) return;
    const message = `stream ${streamId} failed: node ${culprit} did not yield its thread`;
    for (const [id, node] of Object.entries(last.nodes)) {
      node.state = id === culprit ? 'error' : 'terminated';
      if (id === culprit) node.metrics.lastError = message;
    }
    this.release(streamId);
    this.failed.set(streamId, last);
    try {
      this.emit({ type: 'stream_failed', streamId, message });
    } finally {
      this.failed.delete(streamId);
    }
  }

  private release(streamId: string): void {
    for (const release of this.releases.get(streamId) ?? []) release();
    this.releases.delete(streamId);
    this.modelled.delete(streamId);
    this.running.delete(streamId);
  }

  /** When set, stop() fails with this message (after releasing the stream). */
  failStop: string | undefined;

  async stop(streamId: string): Promise<RuntimeStreamStatus | undefined> {
    this.calls.push({ op: 'stop', streamId });
    await this.gates.get('stop');
    // As the real runtime: the status after the stop, every node terminated.
    const last = this.status(streamId);
    for (const node of Object.values(last?.nodes ?? {}))
      if (node.state !== 'error') node.state = 'terminated';
    this.release(streamId);
    if (this.failStop !== undefined) throw new Error(this.failStop);
    return last;
  }

  async pause(streamId: string): Promise<void> {
    this.calls.push({ op: 'pause', streamId });
    await this.gates.get('pause');
    this.mustRun(streamId, 'pause').paused = true;
  }

  async resume(streamId: string): Promise<void> {
    this.calls.push({ op: 'resume', streamId });
    this.mustRun(streamId, 'resume').paused = false;
  }

  async update(stream: StreamDefinition): Promise<void> {
    this.calls.push({ op: 'update', streamId: stream.id, detail: stream });
    await this.gates.get('update');
    const r = this.mustRun(stream.id, 'update');
    const known = new Set(r.definition.nodes.map((n) => n.id));
    await this.probePorts(stream.nodes.filter((n) => !known.has(n.id)));
    if (this.failUpdate !== undefined) throw new HeadsetdError('validation_failed', this.failUpdate);
    r.definition = stream;
  }

  /**
   * When set, a node signal to a running stream fails with this: a catalogue error as the node's
   * refusal (the real runtime rebuilds it from the worker's reply), or a plain Error as a fault.
   */
  refuseSignal: Error | undefined;

  async signalNode(
    streamId: string,
    nodeId: string,
    signal: string,
    payload: Record<string, unknown>,
  ): Promise<void> {
    this.calls.push({ op: 'signalNode', streamId, detail: { nodeId, signal, payload } });
    const r = this.mustRun(streamId, signal);
    if (this.refuseSignal !== undefined) throw this.refuseSignal;
    const node = r.definition.nodes.find((n) => n.id === nodeId);
    const states = this.modelled.get(streamId);
    // As the real runtime: pause and resume act on the node alone; a custom signal reaches the node.
    if (signal === 'pause') states?.set(nodeId, { state: 'paused', lastError: null });
    else if (signal === 'resume') states?.delete(nodeId);
    else if (node?.executable === 'test-pass' && !['start', 'stop', 'restart'].includes(signal)) {
      this.logLine(streamId, nodeId, `signal ${signal}: ${JSON.stringify(payload)}`);
    }
  }

  private logLine(streamId: string, nodeId: string, line: string): void {
    let nodes = this.nodeLogs.get(streamId);
    if (nodes === undefined) {
      nodes = new Map();
      this.nodeLogs.set(streamId, nodes);
    }
    nodes.set(nodeId, [...(nodes.get(nodeId) ?? []), { timestamp: Date.now(), stream: 'event', line }]);
  }

  status(streamId: string): RuntimeStreamStatus | undefined {
    const r = this.running.get(streamId);
    if (r === undefined) return this.failed.get(streamId);
    return {
      nodes: Object.fromEntries(
        r.definition.nodes.map((n) => [
          n.id,
          {
            state:
              this.nodeStates.get(n.id)?.state ??
              this.modelled.get(streamId)?.get(n.id)?.state ??
              (r.paused ? 'paused' : 'running'),
            metrics: {
              itemsProcessed: 3,
              samplesProcessed: 30,
              errorCount: 0,
              framesDropped: 0,
              queueDepth: 0,
              restarts: 0,
              lastError:
                this.nodeStates.get(n.id)?.lastError ??
                this.modelled.get(streamId)?.get(n.id)?.lastError ??
                null,
            },
            info:
              n.executable === 'websocket'
                ? { port: typeof n.config?.port === 'number' && n.config.port !== 0 ? n.config.port : 50000 }
                : {},
          },
        ]),
      ),
      pipes: {},
    };
  }

  logs(streamId: string, nodeId: string): readonly NodeLogLine[] {
    if (this.forgotten.has(streamId)) return [];
    return [
      { timestamp: 1, stream: 'event', line: `${streamId}/${nodeId} started` },
      ...(this.nodeLogs.get(streamId)?.get(nodeId) ?? []),
    ];
  }

  /** Streams whose logs were dropped (deleted streams). */
  readonly forgotten = new Set<string>();

  forget(streamId: string): void {
    if (this.running.has(streamId)) return;
    this.forgotten.add(streamId);
    this.nodeLogs.delete(streamId);
  }

  tap(streamId: string, nodeId: string, onFrame: (frame: Frame) => void): () => void {
    const key = `${streamId}/${nodeId}`;
    let set = this.taps.get(key);
    if (set === undefined) {
      // A listener that throws keeps no other from the frame (the real runtime logs it).
      set = new ListenerSet<Frame>(() => undefined);
      this.taps.set(key, set);
    }
    return set.add(onFrame);
  }

  /**
   * Delivers a frame to the tap listeners of a node, as a tap node of a running stream would. A
   * listener that throws keeps no other from the frame (as on the real runtime).
   */
  emitTap(streamId: string, nodeId: string, frame: Frame): void {
    this.taps.get(`${streamId}/${nodeId}`)?.emit(frame);
  }

  /** Keeps a copy of the frame (the caller's is not kept) and hands it to the taps it reaches. */
  feed(streamId: string, nodeId: string, frame: Frame): boolean {
    const r = this.running.get(streamId);
    if (r === undefined) return false;
    const copy: Frame = { ...frame, data: Float32Array.from(frame.data) };
    this.fed.push({ streamId, nodeId, frame: copy });
    if (!r.paused) for (const tap of tapsFedBy(r.definition, nodeId)) this.emitTap(streamId, tap, copy);
    return true;
  }

  onEvent(listener: (event: RuntimeEvent) => void): void {
    this.listeners.add(listener);
  }

  /** Hands an event to every listener; one that throws keeps no other from it (as on the real runtime). */
  emit(event: RuntimeEvent): void {
    this.listeners.emit(event);
  }

  async close(): Promise<void> {
    this.calls.push({ op: 'close', streamId: '' });
    this.closed = true;
    for (const id of [...this.running.keys()]) this.release(id);
  }

  /** Ends every stream at once (a shutdown past its deadline); a pending close resolves. */
  abort(): void {
    this.calls.push({ op: 'abort', streamId: '' });
    this.closed = true;
    for (const id of [...this.running.keys()]) this.release(id);
  }
}
