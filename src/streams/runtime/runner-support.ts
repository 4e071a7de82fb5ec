/**
 * What a node runner shares with its surroundings: the environment the graph gives it, the
 * counters it keeps, and its timeouts.
 */
import type { AccessPolicy } from '../../core/access-policy.js';
import type { NodeDef } from '../../core/stream-model.js';
import type { Frame } from '../../core/frame.js';
import type { DeviceFrameSource, MainThreadLink, NodeFactory } from '../../core/node.js';
import { errorMessage } from '../../core/error-message.js';

/** A node that is not ready after this long fails to start. */
export const NODE_START_TIMEOUT_MS = 10_000;
/** A node's stop() that takes longer is abandoned (its worker is terminated with the stream anyway). */
export const NODE_STOP_TIMEOUT_MS = 5_000;

/** What a runner needs from its graph. */
export interface RunnerEnvironment {
  readonly streamId: string;
  readonly dataDir: string;
  /** The stream's `meta.name` (NodeContext.streamName), read when a node starts. */
  readonly streamName?: () => string | undefined;
  readonly device?: DeviceFrameSource;
  /** The service's rules for sockets, passed to every node's context. */
  readonly access?: AccessPolicy;
  /** A node's line to the main thread (NodeContext.mainThread); absent outside a stream's worker. */
  readonly mainThreadLink?: (nodeId: string) => MainThreadLink;
  resolveFactory(node: NodeDef): Promise<NodeFactory>;
  /** Routes a sealed frame to every pipe leaving `nodeId` at `port`. */
  route(nodeId: string, port: string, frame: Frame): void;
  /** True when a pipe arrives at the node: a node without inputs counts emitted frames as processed. */
  hasInputs(nodeId: string): boolean;
  /** True while the stream is paused: a source that (re)starts meanwhile starts paused. */
  streamPaused(): boolean;
  /** Marks which node runs code on the thread right now (undefined: none), for the watchdog. */
  enter(nodeId: string | undefined): void;
  /** The node's state or info changed: status should be pushed. */
  changed(): void;
  crashed(nodeId: string, message: string, willRestart: boolean): void;
  /** A running node's warning (NodeContext.warn). */
  warned(nodeId: string, message: string): void;
  /** A node's child process group started (true) or ended (false). */
  processGroup(pgid: number, alive: boolean): void;
}

export interface NodeCounters {
  itemsProcessed: number;
  samplesProcessed: number;
  errorCount: number;
  /** Frames the node itself lost (its input pipes' drops are added by the graph). */
  framesDropped: number;
  restarts: number;
  lastError: string | null;
}

/** Rejects with `message` when `promise` has not settled within `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(message));
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(errorMessage(error)));
      },
    );
  });
}
