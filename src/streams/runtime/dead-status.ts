/**
 * The statuses the runtime shows of a stream whose thread died under it (worker-runtime.ts): its last
 * status after the death, and the status of one started again elsewhere, whose nodes carry why.
 */
import type { RuntimeStreamStatus } from './stream-runtime.js';

/** The last status of a dead stream: the node that hung it in `error`, every other node `terminated`. */
export function postMortem(
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

/** A status whose nodes without an error of their own show `reason` as their lastError. */
export function withReason(status: RuntimeStreamStatus, reason: string): RuntimeStreamStatus {
  const nodes: RuntimeStreamStatus['nodes'] = {};
  for (const [id, node] of Object.entries(status.nodes)) {
    nodes[id] =
      node.metrics.lastError === null ? { ...node, metrics: { ...node.metrics, lastError: reason } } : node;
  }
  return { ...status, nodes };
}
