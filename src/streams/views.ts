/**
 * The shapes a stream is answered in (API-NOTES.md §Shapes): the read (upper-case `status` on the
 * stream and its nodes), the status (lower case, with metrics) and the list summary.
 */
import type { NodeState, StreamDefinition, StreamMeta, StreamState } from './model.js';
import type { StreamEntry } from './manager.js';
import type { NodeMetrics, RuntimeNodeStatus, RuntimeStreamStatus } from './runtime-port.js';

export const ZERO_METRICS: NodeMetrics = {
  itemsProcessed: 0,
  samplesProcessed: 0,
  errorCount: 0,
  framesDropped: 0,
  queueDepth: 0,
  restarts: 0,
  lastError: null,
};

export interface NodeStatusView {
  id: string;
  state: NodeState;
  metrics: NodeMetrics;
  [info: string]: unknown;
}

export interface StreamStatusView {
  state: StreamState;
  /** Why the stream is in `error`; null otherwise. */
  error: string | null;
  nodes: NodeStatusView[];
  pipes: Record<string, { framesSent: number; framesDropped: number; queueDepth: number }>;
}

/** A node's state when the runtime does not run it: created until the stream first ran, then terminated. */
function idleState(entry: StreamEntry, last: RuntimeNodeStatus | undefined, nodeId: string): NodeState {
  if (entry.failedNode === nodeId || last?.state === 'error') return 'error';
  return entry.desired === 'created' && last === undefined ? 'created' : 'terminated';
}

export function nodeStatuses(
  entry: StreamEntry,
  runtime: RuntimeStreamStatus | undefined,
  live: boolean,
): NodeStatusView[] {
  return entry.definition.nodes.map((node) => {
    // Own keys only: node ids are the client's strings, and `nodes['constructor']` of a snapshot
    // that does not list the node yet would read Object.prototype.
    const status =
      runtime !== undefined && Object.hasOwn(runtime.nodes, node.id) ? runtime.nodes[node.id] : undefined;
    const state = live && status !== undefined ? status.state : idleState(entry, status, node.id);
    const metrics = { ...ZERO_METRICS, ...status?.metrics };
    if (entry.failedNode === node.id && metrics.lastError === null) metrics.lastError = entry.error;
    return { ...status?.info, id: node.id, state, metrics };
  });
}

export function statusView(
  entry: StreamEntry,
  runtime: RuntimeStreamStatus | undefined,
  live: boolean,
): StreamStatusView {
  return {
    state: entry.state,
    error: entry.error,
    nodes: nodeStatuses(entry, runtime, live),
    pipes: runtime?.pipes ?? {},
  };
}

export interface StreamReadView {
  id: string;
  meta: StreamMeta;
  nodes: (StreamDefinition['nodes'][number] & { status: string })[];
  pipes: StreamDefinition['pipes'];
  status: string;
}

export function readView(
  entry: StreamEntry,
  runtime: RuntimeStreamStatus | undefined,
  live: boolean,
): StreamReadView {
  const states = new Map(nodeStatuses(entry, runtime, live).map((n) => [n.id, n.state]));
  const { id, meta, nodes, pipes } = entry.definition;
  return {
    id,
    meta,
    nodes: nodes.map((n) => ({ ...n, status: (states.get(n.id) ?? 'created').toUpperCase() })),
    pipes,
    status: entry.state.toUpperCase(),
  };
}
