/**
 * The difference between the running definition and a new one (docs/api.md §Paths and shapes, PUT on a
 * running stream): which nodes to start, stop or restart and which pipes to rewire. Nodes whose
 * executable and config are unchanged are left alone, whatever else changed about them (meta, type).
 */
import type { NodeDef, PipeDef, StreamDefinition } from '../../core/stream-model.js';
import { pipeEnds, pipeQueue } from '../../core/stream-model.js';

export interface DefinitionDiff {
  addedNodes: NodeDef[];
  removedNodes: string[];
  /** Executable or config changed: restarted with the new definition. */
  changedNodes: NodeDef[];
  /** Kept running; the new definition (meta may differ) replaces the old one. */
  unchangedNodes: NodeDef[];
  addedPipes: PipeDef[];
  /** Removed, or changed in any field the runtime uses (then also in addedPipes). */
  removedPipes: string[];
}

/** JSON with object keys sorted, so that key order never counts as a change. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const record = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, record[k]]),
    );
  });
}

function nodeRuns(node: NodeDef): string {
  return canonicalJson({ executable: node.executable.trim(), config: node.config ?? {} });
}

function pipeRuns(pipe: PipeDef): string {
  return canonicalJson({
    source: pipe.source,
    destination: pipe.destination,
    ...pipeEnds(pipe),
    ...pipeQueue(pipe),
  });
}

export function diffDefinitions(before: StreamDefinition, after: StreamDefinition): DefinitionDiff {
  const oldNodes = new Map(before.nodes.map((n) => [n.id, n]));
  const newNodeIds = new Set(after.nodes.map((n) => n.id));
  const diff: DefinitionDiff = {
    addedNodes: [],
    removedNodes: before.nodes.filter((n) => !newNodeIds.has(n.id)).map((n) => n.id),
    changedNodes: [],
    unchangedNodes: [],
    addedPipes: [],
    removedPipes: [],
  };
  for (const node of after.nodes) {
    const old = oldNodes.get(node.id);
    if (old === undefined) diff.addedNodes.push(node);
    else if (nodeRuns(old) !== nodeRuns(node)) diff.changedNodes.push(node);
    else diff.unchangedNodes.push(node);
  }
  const oldPipes = new Map(before.pipes.map((p) => [p.id, p]));
  const newPipeIds = new Set(after.pipes.map((p) => p.id));
  diff.removedPipes = before.pipes.filter((p) => !newPipeIds.has(p.id)).map((p) => p.id);
  for (const pipe of after.pipes) {
    const old = oldPipes.get(pipe.id);
    if (old === undefined) {
      diff.addedPipes.push(pipe);
    } else if (pipeRuns(old) !== pipeRuns(pipe)) {
      diff.removedPipes.push(pipe.id);
      diff.addedPipes.push(pipe);
    }
  }
  return diff;
}
