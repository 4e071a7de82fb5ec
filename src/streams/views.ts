/**
 * The shapes a stream is answered in (docs/api.md §Paths and shapes): the read (upper-case `status` on the
 * stream and its nodes), the status (lower case, with metrics) and the list summary.
 */
import type { NodeState, StreamDefinition, StreamMeta, StreamState } from '../core/stream-model.js';
import type { StreamEntry } from './manager.js';
import type { NodeMetrics, RuntimeNodeStatus, RuntimeStreamStatus } from './runtime/stream-runtime.js';

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
  /**
   * The stream runs (or is paused) with a node in `error` (frames through it are lost), or with a
   * node that holds its frames back (its source cannot deliver what it promised).
   */
  degraded: boolean;
  /** Why the stream is in `error`, or which node makes it degraded; null otherwise. */
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

/** Why a running stream is degraded: its nodes in `error` or holding back, for a person; undefined when none is. */
function degradation(
  entry: StreamEntry,
  nodes: readonly NodeStatusView[],
  live: boolean,
): string | undefined {
  if (!live || (entry.state !== 'running' && entry.state !== 'paused')) return undefined;
  const failed = nodes.filter((n) => n.state === 'error');
  const reasons: string[] = [];
  if (failed.length > 0) {
    const each = failed.map((n) => `node ${n.id} is in error (${n.metrics.lastError ?? 'no reason given'})`);
    reasons.push(
      `${each.join('; ')}; frames through it are lost. Fix it, then restart the node or send reconcile.`,
    );
  }
  for (const [nodeId, why] of entry.held) reasons.push(`node ${nodeId} holds its frames back: ${why}.`);
  return reasons.length === 0 ? undefined : reasons.join(' ');
}

export function statusView(
  entry: StreamEntry,
  runtime: RuntimeStreamStatus | undefined,
  live: boolean,
): StreamStatusView {
  const nodes = nodeStatuses(entry, runtime, live);
  const degraded = degradation(entry, nodes, live);
  return {
    state: entry.state,
    degraded: degraded !== undefined,
    error: entry.error ?? degraded ?? null,
    nodes,
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
