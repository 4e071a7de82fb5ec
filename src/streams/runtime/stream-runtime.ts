/**
 * The narrow interface through which the stream manager drives the data plane. The manager owns
 * desired state and the lifecycle; the runtime only runs what it is given.
 */
import { type ErrorCode, type ErrorDetails, HeadsetdError } from '../../core/errors.js';
import type { Frame } from '../../core/frame.js';
import type { NodeLogLine } from '../../core/node.js';
import type { NodeState, StreamDefinition } from '../../core/stream-model.js';

export interface NodeMetrics {
  /** Frames taken in, or produced by a source. */
  itemsProcessed: number;
  samplesProcessed: number;
  errorCount: number;
  framesDropped: number;
  queueDepth: number;
  restarts: number;
  lastError: string | null;
  /** Per input pipe: ms from a frame's creation at its source to its handling here. */
  latency?: Record<string, { p50: number; p99: number }>;
  /** Counters of the node's own (NodeContext.countMetric), such as a recorder's `clippedSamples`. */
  [counter: string]: number | string | null | Record<string, { p50: number; p99: number }> | undefined;
}

export interface PipeMetrics {
  framesSent: number;
  framesDropped: number;
  queueDepth: number;
}

export interface RuntimeNodeStatus {
  state: NodeState;
  metrics: NodeMetrics;
  /** Extra node-specific fields (a websocket's bound `port`, a recorder's file). */
  info?: Record<string, unknown>;
}

export interface RuntimeStreamStatus {
  nodes: Record<string, RuntimeNodeStatus>;
  pipes: Record<string, PipeMetrics>;
}

/** Why one node of a stream could not start (or failed): what the runtime tells the manager. */
export interface NodeFailure {
  nodeId: string;
  /** For a person, without the node's id: "port 5555 is already in use". */
  reason: string;
  /** The field of the node's config at fault, when one is (a websocket's `port`). */
  field?: string;
  /** The network port at fault, when the failure is about one. */
  port?: number;
}

/**
 * The error a runtime rejects with when a node fails: the failure is typed, so the manager reads
 * the node from it and never from loosely named details (the real runtime and the tests' fake
 * both throw this). Its details are the failure's fields; `code` is the node's own catalog code
 * when it had one, else `validation_failed`.
 */
export class NodeFailureError extends HeadsetdError {
  readonly failure: NodeFailure;

  constructor(failure: NodeFailure, code: ErrorCode = 'validation_failed', details?: ErrorDetails) {
    super(code, `node ${failure.nodeId}: ${failure.reason}`, { ...details, ...failure });
    this.failure = failure;
  }
}

export type RuntimeEvent =
  /** The stream can no longer run (its host died, or a node failed past its restart policy at start). */
  | { type: 'stream_failed'; streamId: string; message: string }
  /**
   * The stream was restarted on another worker because a node of another stream hung the worker
   * they shared; it runs again, its nodes' `lastError` says why it restarted.
   */
  | { type: 'stream_restarted'; streamId: string; message: string }
  /** A node crashed; `willRestart` tells whether the supervisor restarts it. */
  | { type: 'node_crashed'; streamId: string; nodeId: string; message: string; willRestart: boolean }
  /** A running node warns of a condition a person should know of (NodeContext.warn). */
  | { type: 'node_warning'; streamId: string; nodeId: string; message: string }
  /**
   * A running node cannot deliver what it promised and holds its output back (an eeg-source whose
   * channels the device no longer acquires); `node_recovered` when it delivers again.
   */
  | { type: 'node_degraded'; streamId: string; nodeId: string; message: string }
  | { type: 'node_recovered'; streamId: string; nodeId: string; message: string };

export interface StreamRuntime {
  /** Starts every node and pipe. Rejects with a NodeFailureError when a node cannot start. */
  start(stream: StreamDefinition): Promise<void>;
  /**
   * Stops every node, ends every child process. Resolves when all resources are released, with
   * the stream's status after its nodes stopped (their final counters and info: a frame handled
   * between the last status push and the stop is counted), or undefined when it was not running.
   */
  stop(streamId: string): Promise<RuntimeStreamStatus | undefined>;
  pause(streamId: string): Promise<void>;
  resume(streamId: string): Promise<void>;
  /**
   * Applies a new definition to a running or paused stream as a diff (PUT, edits);
   * rejects with a NodeFailureError when an added or changed node cannot start.
   */
  update(stream: StreamDefinition): Promise<void>;
  /** start, stop, pause, resume, restart, or a custom signal forwarded to the node. */
  signalNode(
    streamId: string,
    nodeId: string,
    signal: string,
    payload: Record<string, unknown>,
  ): Promise<void>;
  /** Undefined when the stream is not running in this runtime. */
  status(streamId: string): RuntimeStreamStatus | undefined;
  /**
   * The last 500 log lines of a node, kept after the stream stops until it starts again or is
   * forgotten.
   */
  logs(streamId: string, nodeId: string): readonly NodeLogLine[];
  /**
   * Drops what the runtime keeps of a stream that no longer runs (its nodes' logs): the stream was
   * deleted. Without it, a service that creates and deletes streams all day would keep every
   * deleted stream's logs. A running stream is not touched.
   */
  forget(streamId: string): void;
  onEvent(listener: (event: RuntimeEvent) => void): void;
  /**
   * Frames a `tap` node of the stream receives reach `onFrame` on the caller's thread (their
   * samples copied once across the thread boundary). The listener stays through stops and starts
   * of the stream until the returned function is called, so it may be added before the start.
   */
  tap(streamId: string, nodeId: string, onFrame: (frame: Frame) => void): () => void;
  /**
   * Hands a frame to an `ingest` node of a running stream, which emits it downstream. The caller's
   * frame is not kept (its samples are copied). False when the stream does not run here.
   */
  feed(streamId: string, nodeId: string, frame: Frame): boolean;
  /** Stops everything; no child process outlives it. */
  close(): Promise<void>;
  /**
   * Ends every stream at once, for a shutdown past its deadline: each external node's process
   * group gets SIGKILL before this returns, and threads are terminated. A pending `close` then
   * resolves promptly. Optional: runtimes without child processes need none.
   */
  abort?(): void;
}
