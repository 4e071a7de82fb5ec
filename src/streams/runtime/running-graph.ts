/**
 * A running stream's graph, on one thread: node runners, the pipes between them, the drain loop
 * that feeds consumers, live edits, and the status snapshot. host.ts runs one of these per stream
 * in a data-plane worker (many per worker); tests can run one in-process.
 */
import { HeadsetdError, isHeadsetdError } from '../../core/errors.js';
import type { AccessPolicy } from '../../core/access-policy.js';
import type { NodeDef, PipeDef, StreamDefinition } from '../../core/stream-model.js';
import { pipeEnds, pipeQueue } from '../../core/stream-model.js';
import {
  type NodeFailure,
  NodeFailureError,
  type NodeMetrics,
  type PipeMetrics,
  type RuntimeEvent,
  type RuntimeStreamStatus,
} from './stream-runtime.js';
import { diffDefinitions } from './definition-diff.js';
import type { Frame } from '../../core/frame.js';
import { frameClock } from './metrics.js';
import type { DeviceFrameSource, MainThreadLink, NodeFactory, NodeLogLine } from '../../core/node.js';
import { NodeConfigError } from './node-errors.js';
import { NodeRunner, type RunnerEnvironment } from './node-runner.js';
import { Pipe } from './pipe.js';
import { DrainScheduler } from './scheduler.js';
import { errorMessage } from '../../core/error-message.js';

export interface StreamGraphOptions {
  streamId: string;
  dataDir: string;
  device?: DeviceFrameSource;
  /** The service's rules for sockets (see NodeContext.access). */
  access?: AccessPolicy;
  resolveFactory(node: NodeDef): Promise<NodeFactory>;
  /** A node's line to the main thread (NodeContext.mainThread); absent outside a stream's worker. */
  readonly mainThreadLink?: (nodeId: string) => MainThreadLink;
  /** A node's state or info changed. */
  onChange?(): void;
  onEvent?(event: RuntimeEvent): void;
  /** The node now running code on this thread (undefined: none); the watchdog names it on a hang. */
  onEnter?(nodeId: string | undefined): void;
  /** A node's child process group started or ended (see NodeContext.trackProcessGroup). */
  onProcessGroup?(pgid: number, alive: boolean): void;
}

/** The error `start` and `update` reject with: the node's failure, with its catalog code when it had one. */
export function nodeStartError(nodeId: string, error: unknown): NodeFailureError {
  if (error instanceof NodeFailureError) return error;
  // A catalog error may name the config field at fault too (an eeg-source's `channels`).
  const detailField = isHeadsetdError(error) ? error.details?.field : undefined;
  const field =
    error instanceof NodeConfigError
      ? error.field
      : typeof detailField === 'string'
        ? detailField
        : undefined;
  const failure: NodeFailure = {
    nodeId,
    reason: errorMessage(error),
    ...(field === undefined ? {} : { field }),
    ...(error instanceof NodeConfigError && error.port !== undefined ? { port: error.port } : {}),
  };
  return isHeadsetdError(error)
    ? new NodeFailureError(failure, error.code, error.details)
    : new NodeFailureError(failure);
}

/** The graph of a running stream, worker side: its node runners and the pipes between them (host.ts's HostedStream holds it). */
export class RunningGraph {
  private definition: StreamDefinition | undefined;
  private readonly runners = new Map<string, NodeRunner>();
  private readonly pipes = new Map<string, Pipe>();
  private pipeList: Pipe[] = [];
  private readonly outgoing = new Map<string, Pipe[]>();
  private readonly incoming = new Map<string, Pipe[]>();
  private readonly scheduler = new DrainScheduler(() => this.drainStep());
  private readonly env: RunnerEnvironment;
  private streamPaused = false;

  constructor(private readonly options: StreamGraphOptions) {
    this.env = {
      streamId: options.streamId,
      dataDir: options.dataDir,
      ...(options.device === undefined ? {} : { device: options.device }),
      ...(options.access === undefined ? {} : { access: options.access }),
      ...(options.mainThreadLink === undefined ? {} : { mainThreadLink: options.mainThreadLink }),
      streamName: () => {
        const name = this.definition?.meta.name;
        return typeof name === 'string' ? name : undefined;
      },
      resolveFactory: (node) => options.resolveFactory(node),
      route: (nodeId, port, frame) => {
        this.route(nodeId, port, frame);
      },
      hasInputs: (nodeId) => (this.incoming.get(nodeId)?.length ?? 0) > 0,
      streamPaused: () => this.streamPaused,
      enter: (nodeId) => options.onEnter?.(nodeId),
      changed: () => {
        this.scheduler.wake();
        options.onChange?.();
      },
      processGroup: (pgid, alive) => options.onProcessGroup?.(pgid, alive),
      crashed: (nodeId, message, willRestart) =>
        options.onEvent?.({ type: 'node_crashed', streamId: options.streamId, nodeId, message, willRestart }),
      warned: (nodeId, message) =>
        options.onEvent?.({ type: 'node_warning', streamId: options.streamId, nodeId, message }),
    };
  }

  get paused(): boolean {
    return this.streamPaused;
  }

  /** Starts every node (consumers first, then sources). On a failure everything is stopped again. */
  async start(definition: StreamDefinition): Promise<void> {
    this.definition = definition;
    for (const node of definition.nodes) this.runners.set(node.id, new NodeRunner(node, this.env));
    for (const pipe of definition.pipes) this.addPipe(pipe);
    const isSource = (id: string) => (this.incoming.get(id)?.length ?? 0) === 0;
    const ids = definition.nodes.map((n) => n.id);
    for (const phase of [ids.filter((id) => !isSource(id)), ids.filter(isSource)]) {
      const failure = await this.startNodes(phase);
      if (failure !== undefined) {
        await this.stop();
        throw failure;
      }
    }
  }

  /** Stops every node and discards queued frames. */
  async stop(): Promise<void> {
    this.scheduler.stop();
    await Promise.all([...this.runners.values()].map((r) => r.stop()));
    for (const pipe of this.pipes.values()) pipe.clear();
  }

  /** Sources stop emitting; every other node keeps draining its queues. */
  pause(): void {
    this.streamPaused = true;
    for (const runner of this.runners.values()) runner.pauseForStream();
  }

  /** Sources emit again; their first frame carries `discontinuity: true`. */
  resume(): void {
    this.streamPaused = false;
    for (const runner of this.runners.values()) runner.resumeForStream();
    this.scheduler.wake();
  }

  /**
   * Applies a new definition as a diff. Commands run between drain steps, so pipes change at frame
   * boundaries. Rejects (after applying everything else) when an added or changed node cannot start;
   * that node stays in `error` with its `lastError`.
   */
  async update(definition: StreamDefinition): Promise<void> {
    const before = this.definition ?? { ...definition, nodes: [], pipes: [] };
    const diff = diffDefinitions(before, definition);
    for (const id of diff.removedPipes) this.removePipe(id);
    const removed = new Set(diff.removedNodes);
    for (const pipe of [...this.pipes.values()]) {
      if (removed.has(pipe.source) || removed.has(pipe.destination)) this.removePipe(pipe.id);
    }
    await Promise.all(
      diff.removedNodes.map(async (id) => {
        const runner = this.runners.get(id);
        this.runners.delete(id);
        await runner?.stop();
      }),
    );
    for (const node of diff.unchangedNodes) this.runners.get(node.id)?.redefine(node);
    await Promise.all(
      diff.changedNodes.map(async (node) => {
        await this.runners.get(node.id)?.replace(node);
      }),
    );
    for (const node of diff.addedNodes) this.runners.set(node.id, new NodeRunner(node, this.env));
    for (const pipe of diff.addedPipes) this.addPipe(pipe);
    this.definition = definition;
    const failure = await this.startNodes([...diff.changedNodes, ...diff.addedNodes].map((n) => n.id));
    if (this.streamPaused) this.pause();
    this.scheduler.wake();
    if (failure !== undefined) throw failure;
  }

  async signalNode(
    nodeId: string,
    signal: string,
    payload: Readonly<Record<string, unknown>>,
  ): Promise<void> {
    const runner = this.runners.get(nodeId);
    if (runner === undefined) {
      throw new HeadsetdError('node_not_found', `the stream has no node '${nodeId}'.`, { nodeId });
    }
    try {
      await runner.signal(signal, payload);
    } catch (error) {
      throw signal === 'start' || signal === 'restart' ? nodeStartError(nodeId, error) : error;
    }
    this.scheduler.wake();
  }

  status(): RuntimeStreamStatus {
    const now = frameClock();
    const nodes: RuntimeStreamStatus['nodes'] = {};
    for (const [id, runner] of this.runners) {
      const inputs = this.incoming.get(id) ?? [];
      const metrics: NodeMetrics = {
        ...runner.ownMetrics,
        ...runner.counters,
        framesDropped: runner.counters.framesDropped + inputs.reduce((sum, p) => sum + p.framesDropped, 0),
        queueDepth: inputs.reduce((sum, p) => sum + p.depth, 0),
      };
      const latency: NonNullable<NodeMetrics['latency']> = {};
      for (const pipe of inputs) {
        const summary = pipe.latency.summary(now);
        if (summary !== undefined) latency[pipe.id] = summary;
      }
      if (Object.keys(latency).length > 0) metrics.latency = latency;
      nodes[id] = {
        state: runner.state,
        metrics,
        ...(Object.keys(runner.info).length > 0 ? { info: { ...runner.info } } : {}),
      };
    }
    const pipes: Record<string, PipeMetrics> = {};
    for (const [id, pipe] of this.pipes) {
      pipes[id] = { framesSent: pipe.framesSent, framesDropped: pipe.framesDropped, queueDepth: pipe.depth };
    }
    return { nodes, pipes };
  }

  /** Log lines written since the last call, per node. */
  /** Whether any node logged since the last `collectLogs`. */
  hasLogs(): boolean {
    for (const runner of this.runners.values()) if (runner.newLogs.size > 0) return true;
    return false;
  }

  collectLogs(): { nodeId: string; lines: NodeLogLine[] }[] {
    const out: { nodeId: string; lines: NodeLogLine[] }[] = [];
    for (const [nodeId, runner] of this.runners) {
      if (runner.newLogs.size > 0) out.push({ nodeId, lines: runner.newLogs.drain() });
    }
    return out;
  }

  /** Starts the given nodes in parallel; the error of the first one (in the given order) that failed. */
  private async startNodes(ids: string[]): Promise<NodeFailureError | undefined> {
    const results = await Promise.allSettled(
      ids.map((id) => this.runners.get(id)?.start() ?? Promise.resolve()),
    );
    const index = results.findIndex((r) => r.status === 'rejected');
    const failed = results[index];
    const id = ids[index];
    if (failed?.status !== 'rejected' || id === undefined) return undefined;
    return nodeStartError(id, failed.reason);
  }

  private addPipe(def: PipeDef): void {
    const pipe = new Pipe({
      id: def.id,
      source: def.source,
      destination: def.destination,
      ...pipeEnds(def),
      ...pipeQueue(def),
    });
    this.pipes.set(pipe.id, pipe);
    this.outgoing.set(pipe.source, [...(this.outgoing.get(pipe.source) ?? []), pipe]);
    this.incoming.set(pipe.destination, [...(this.incoming.get(pipe.destination) ?? []), pipe]);
    this.pipeList = [...this.pipes.values()];
  }

  private removePipe(id: string): void {
    const pipe = this.pipes.get(id);
    if (pipe === undefined) return;
    pipe.clear();
    this.pipes.delete(id);
    const without = (list: Pipe[] | undefined) => (list ?? []).filter((p) => p !== pipe);
    this.outgoing.set(pipe.source, without(this.outgoing.get(pipe.source)));
    this.incoming.set(pipe.destination, without(this.incoming.get(pipe.destination)));
    // Its drops stay counted on the consumer.
    const consumer = this.runners.get(pipe.destination);
    if (consumer !== undefined) consumer.counters.framesDropped += pipe.framesDropped;
    this.pipeList = [...this.pipes.values()];
  }

  /** Fan-out: the same sealed frame object goes into every pipe leaving the port. */
  private route(nodeId: string, port: string, frame: Frame): void {
    const pipes = this.outgoing.get(nodeId);
    if (pipes === undefined) return;
    let queued = false;
    for (const pipe of pipes) {
      if (pipe.sourcePort !== port) continue;
      if (pipe.push(frame) === 'refused') {
        const consumer = this.runners.get(pipe.destination);
        // A consumer that failed (in error, or waiting for its restart) let the pipe fill: its own
        // failure is the cause and stays its lastError; the lost frames are still counted.
        if (consumer !== undefined && (consumer.state === 'running' || consumer.state === 'paused')) {
          consumer.counters.errorCount++;
          consumer.counters.lastError = `pipe ${pipe.id} (policy block) reached its hard cap of ${pipe.limit} frames; frames were lost`;
        }
      }
      queued = true;
    }
    if (queued) this.scheduler.deliverNow();
  }

  /** One round over the pipes, one frame each: fair between consumers. False when nothing moved. */
  private drainStep(): boolean {
    let moved = false;
    for (const pipe of this.pipeList) {
      if (pipe.depth === 0) continue;
      const consumer = this.runners.get(pipe.destination);
      if (consumer === undefined || !consumer.accepting || this.heldBack(pipe.destination)) continue;
      const frame = pipe.shift();
      if (frame === undefined) continue;
      consumer.deliver(pipe.targetPort, frame, frameClock(), pipe.latency);
      moved = true;
    }
    return moved;
  }

  /** A node with a congested `block` output is not fed: backpressure moves to its input pipes. */
  private heldBack(nodeId: string): boolean {
    const outputs = this.outgoing.get(nodeId);
    return outputs !== undefined && outputs.some((p) => p.congested);
  }
}
