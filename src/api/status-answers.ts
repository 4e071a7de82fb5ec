/**
 * The answers of GET /stream/streams/{id}/status, serialized once per change of what they are
 * made of: the stream's state, error, held nodes and definition, and the runtime's status snapshot (a new
 * object with every push, every 250 ms or on a change). Between two pushes a client polling the
 * status gets the same bytes without the view being rebuilt and stringified again; this was the
 * largest share of the route's CPU (docs/performance.md).
 */
import type { RuntimeStreamStatus } from '../streams/runtime/stream-runtime.js';
import type { StreamEntry } from '../streams/manager.js';
import { statusView } from '../streams/views.js';

interface Answer {
  runtime: RuntimeStreamStatus | undefined;
  live: boolean;
  state: StreamEntry['state'];
  desired: StreamEntry['desired'];
  error: string | null;
  failedNode: string | null;
  held: StreamEntry['held'];
  definition: StreamEntry['definition'];
  text: string;
}

export class StatusAnswers {
  private readonly answers = new WeakMap<StreamEntry, Answer>();

  /** The answer's JSON text: `{success: true, status}`. */
  text(entry: StreamEntry, runtime: RuntimeStreamStatus | undefined, live: boolean): string {
    const last = this.answers.get(entry);
    if (
      last !== undefined &&
      last.runtime === runtime &&
      last.live === live &&
      last.state === entry.state &&
      last.desired === entry.desired &&
      last.error === entry.error &&
      last.failedNode === entry.failedNode &&
      last.held === entry.held &&
      last.definition === entry.definition
    ) {
      return last.text;
    }
    const text = JSON.stringify({ success: true, status: statusView(entry, runtime, live) });
    this.answers.set(entry, {
      runtime,
      live,
      state: entry.state,
      desired: entry.desired,
      error: entry.error,
      failedNode: entry.failedNode,
      held: entry.held,
      definition: entry.definition,
      text,
    });
    return text;
  }
}
