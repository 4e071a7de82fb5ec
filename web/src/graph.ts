/**
 * Where the Streams panel draws a stream's nodes: a layered layout, each node one column right of
 * its furthest upstream node (sources in the first column), nodes of a column stacked in the order
 * of the document. A stream is a DAG of tens of nodes at most; this needs no layout library.
 */

export interface GraphNode {
  id: string;
}

export interface GraphPipe {
  id: string;
  source: string;
  destination: string;
}

export interface Placed {
  x: number;
  y: number;
}

export const NODE_WIDTH = 190;
export const NODE_HEIGHT = 92;
const COLUMN_GAP = 170;
const ROW_GAP = 36;

export function layout(
  nodes: readonly GraphNode[],
  pipes: readonly GraphPipe[],
): { at: Map<string, Placed>; width: number; height: number } {
  const column = new Map<string, number>(nodes.map((n) => [n.id, 0]));
  // Longest path from a source: relax the pipes as many times as there are nodes (no cycle exists).
  for (let round = 0; round < nodes.length; round++) {
    let changed = false;
    for (const p of pipes) {
      const next = (column.get(p.source) ?? 0) + 1;
      if (column.has(p.destination) && next > (column.get(p.destination) ?? 0)) {
        column.set(p.destination, next);
        changed = true;
      }
    }
    if (!changed) break;
  }
  const rows = new Map<number, number>();
  const at = new Map<string, Placed>();
  let width = 0;
  let height = 0;
  for (const n of nodes) {
    const c = column.get(n.id) ?? 0;
    const r = rows.get(c) ?? 0;
    rows.set(c, r + 1);
    const placed = { x: 20 + c * (NODE_WIDTH + COLUMN_GAP), y: 20 + r * (NODE_HEIGHT + ROW_GAP) };
    at.set(n.id, placed);
    width = Math.max(width, placed.x + NODE_WIDTH + 20);
    height = Math.max(height, placed.y + NODE_HEIGHT + 20);
  }
  return { at, width, height };
}
