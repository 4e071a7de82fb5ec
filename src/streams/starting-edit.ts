/**
 * An edit of a running stream answered before its nodes have started (the maker's SDK paths,
 * docs/instinct-sdk.md §Streams): stored first, then applied in the stream's turn with nothing
 * rolled back. The client was already told the node was added, so a node that cannot start stays
 * in the stream in `error` (the runtime keeps it so, with its `lastError`), the stream is degraded,
 * and `stream_degraded` is announced: the outcome is reported as a stream start's is, by the
 * stream's status and an event, not by undoing what was answered.
 */
import { HeadsetdError } from '../core/errors.js';
import type { StreamDefinition } from '../core/stream-model.js';
import { errorMessage } from '../core/error-message.js';
import { NodeFailureError, type StreamRuntime } from './runtime/stream-runtime.js';
import type { StreamDegradedEvent } from './degradation.js';
import type { StreamEntry } from './entry.js';
import type { Transitions } from './transitions.js';
import { rebaseError } from './edit-errors.js';
import type { GraphDocument } from './edits.js';
import type { GraphContext } from './graph-document.js';
import { queueEdit } from './revision.js';
import { assertGraph } from './stream-document.js';
import type { StreamStore } from './store.js';

/**
 * An edit stored and being applied to the running stream: `started` resolves once the runtime has
 * it, with the failure if a node could not start (that node then stays in the stream, in `error`).
 */
export interface StartingEdit {
  added: string[];
  revision: number;
  started: Promise<HeadsetdError | undefined>;
}

export interface KeepingDeps {
  transitions: Pick<Transitions, 'enqueue'>;
  runtime: Pick<StreamRuntime, 'update'>;
  store: Pick<StreamStore, 'replace'>;
  context: GraphContext;
  onEvent: (event: StreamDegradedEvent) => void;
}

/** The stream as an edit leaves it: the edited graph, the rest kept, `meta.updated` now. */
export function editedDefinition(definition: StreamDefinition, graph: GraphDocument): StreamDefinition {
  return {
    ...definition,
    nodes: graph.nodes,
    pipes: graph.pipes,
    meta: { ...definition.meta, updated: new Date().toISOString() },
  };
}

/**
 * Validates the graph `build` makes from the stream and stores it in the stream's turn of edits;
 * resolves once stored, with `started`, the outcome of applying it to the running stream.
 * `at` says where the request's items sit, so that an error points into the request's body.
 */
export async function startingEdit(
  deps: KeepingDeps,
  entry: StreamEntry,
  build: (definition: StreamDefinition) => {
    graph: GraphDocument;
    added: string[];
    at: { collection: 'nodes' | 'pipes'; offset: number };
  },
): Promise<StartingEdit> {
  let started: Promise<HeadsetdError | undefined> = Promise.resolve(undefined);
  const stored = await queueEdit(entry, undefined, async () => {
    const { graph, added, at } = build(entry.definition);
    try {
      assertGraph(graph.nodes, graph.pipes, deps.context);
    } catch (error) {
      throw rebaseError(error, at.collection, at.offset);
    }
    const definition = editedDefinition(entry.definition, graph);
    deps.store.replace(definition, entry.revision + 1);
    entry.definition = definition;
    entry.revision += 1;
    // Not awaited: the turn of edits ends once stored, and the next edit builds on this one.
    started = applyKeeping(deps, entry, definition);
    return { added };
  });
  return { ...stored, started };
}

/** Applies a stored definition to the running stream in its turn; the failure, if any, rolled back nothing. */
async function applyKeeping(
  deps: KeepingDeps,
  entry: StreamEntry,
  definition: StreamDefinition,
): Promise<HeadsetdError | undefined> {
  if (entry.state === 'created' || entry.state === 'stopped' || entry.state === 'error') return undefined;
  try {
    await deps.transitions.enqueue(entry, async () => {
      if (entry.state === 'running' || entry.state === 'paused' || entry.state === 'pausing') {
        await deps.runtime.update(definition);
      }
    });
    return undefined;
  } catch (error) {
    if (!(error instanceof NodeFailureError)) {
      const reason = errorMessage(error);
      return error instanceof HeadsetdError
        ? error
        : new HeadsetdError(
            'transition_failed',
            `The edit could not be applied to the running stream: ${reason}.`,
            {
              reason,
            },
          );
    }
    const { nodeId, reason, field } = error.failure;
    const id = entry.definition.id;
    if (entry.state === 'running' || entry.state === 'paused') {
      deps.onEvent({
        type: 'stream_degraded',
        streamId: id,
        nodeId,
        message: `it could not start: ${reason}`,
        cause: 'node_error',
      });
    }
    // A node that did not start is no fault of the request (it was valid, and is stored): the
    // node's config is at fault only when the failure names its field.
    return new HeadsetdError(
      field === undefined ? 'transition_failed' : error.code,
      `Node ${nodeId} was added to stream ${id} but could not start: ${reason}. It stays in the stream, in error (GET /stream/streams/${id}/status); fix the cause, then restart it or remove it.`,
      { ...error.details, state: entry.state },
    );
  }
}
