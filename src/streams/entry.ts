/**
 * What the manager keeps per stream: the definition, the run state and the desired state, the
 * runtime's last status, and the queues that order its runtime work and its edits.
 */
import type { StreamDefinition, StreamState } from '../core/stream-model.js';
import type { RuntimeStreamStatus } from './runtime/stream-runtime.js';
import type { DesiredState } from './store.js';

export interface StreamEntry {
  definition: StreamDefinition;
  state: StreamState;
  desired: DesiredState;
  /** The definition's revision: 1 when created, one more per edit (the ETag of its reads). */
  revision: number;
  /** Why the stream is in `error`, for a person. */
  error: string | null;
  /** Node that made the stream fail, when one did. */
  failedNode: string | null;
  /**
   * Nodes that run but hold their output back, and why (an eeg-source whose channels the device no
   * longer acquires): the stream is degraded while any is listed. Cleared at each start. Replaced,
   * never changed in place, so that a cached answer sees the change (api/status-answers.ts).
   */
  held: ReadonlyMap<string, string>;
  /** The runtime's last status before it stopped, so metrics stay readable after a stop. */
  lastStatus: RuntimeStreamStatus | undefined;
  queue: Promise<void>;
  /** Edits of the definition, one after the other: each starts from the one before, once applied. */
  edits: Promise<void>;
}

/** What the manager announces to its listeners (StreamManager.onChange). */
export type StreamChange =
  | { readonly kind: 'added'; readonly entry: StreamEntry }
  | { readonly kind: 'state'; readonly entry: StreamEntry; readonly previous: StreamState }
  | { readonly kind: 'removed'; readonly entry: StreamEntry };

/**
 * A new entry. `onState` hears every change of `state`, wherever it is made (the manager and its
 * transitions assign it): one place, so that no change can go unannounced.
 */
export function newEntry(
  definition: StreamDefinition,
  state: StreamState,
  desired: DesiredState,
  onState?: (entry: StreamEntry, previous: StreamState) => void,
  revision = 1,
): StreamEntry {
  let current = state;
  const entry: StreamEntry = {
    definition,
    get state() {
      return current;
    },
    set state(next: StreamState) {
      if (next === current) return;
      const previous = current;
      current = next;
      onState?.(entry, previous);
    },
    desired,
    revision,
    error: null,
    failedNode: null,
    held: new Map(),
    lastStatus: undefined,
    queue: Promise.resolve(),
    edits: Promise.resolve(),
  };
  return entry;
}

/** The state now: read through a call so that a check after an `await` is not narrowed away. */
export function stateOf(entry: StreamEntry): StreamState {
  return entry.state;
}
