/** A node's bounded log: its last `capacity` lines (docs/api.md §Paths and shapes: logs keep 500). */
import type { NodeLogLine } from '../../core/node.js';

export const NODE_LOG_LINES = 500;

export class LogRing {
  private readonly lines: NodeLogLine[] = [];
  private start = 0;

  constructor(readonly capacity: number = NODE_LOG_LINES) {}

  push(line: NodeLogLine): void {
    if (this.lines.length < this.capacity) {
      this.lines.push(line);
      return;
    }
    this.lines[this.start] = line;
    this.start = (this.start + 1) % this.capacity;
  }

  /** Oldest first. */
  toArray(): NodeLogLine[] {
    return [...this.lines.slice(this.start), ...this.lines.slice(0, this.start)];
  }

  /** Returns every line and empties the ring. */
  drain(): NodeLogLine[] {
    const all = this.toArray();
    this.lines.length = 0;
    this.start = 0;
    return all;
  }

  get size(): number {
    return this.lines.length;
  }
}
