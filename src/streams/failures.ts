/**
 * What a client is answered when a stream signal's transition fails within the signal's wait: the
 * failing node, a JSON pointer into the stream to what is at fault (`/nodes/1/config/port`), the
 * reason, and the state the stream is in now. Never a 500: a runtime fault is `transition_failed`.
 */
import { HeadsetdError } from '../core/errors.js';
import { type StreamEntry } from './entry.js';
import type { StreamSignal } from '../core/stream-model.js';
import { NodeFailureError } from './runtime/stream-runtime.js';
import { errorMessage } from '../core/error-message.js';

const VERBS: Record<StreamSignal, string> = {
  start: 'start',
  stop: 'stop',
  pause: 'pause',
  resume: 'resume',
  reconcile: 'restart',
};

/** Where in the stream a node failure points: the node, or the config field at fault. */
export function failurePath(entry: StreamEntry, error: NodeFailureError): string | undefined {
  const index = entry.definition.nodes.findIndex((n) => n.id === error.failure.nodeId);
  if (index === -1) return undefined;
  const field = error.failure.field;
  return field === undefined ? `/nodes/${index}` : `/nodes/${index}/config/${field}`;
}

export function transitionError(entry: StreamEntry, signal: StreamSignal, error: unknown): HeadsetdError {
  const state = entry.state;
  const verb = VERBS[signal];
  const now = state === 'error' ? 'is in error' : `is ${state}`;
  if (error instanceof NodeFailureError) {
    const { nodeId, reason } = error.failure;
    const path = failurePath(entry, error);
    const where = path === undefined ? `node ${nodeId}` : path;
    // A node's own internal error is still the node's failure, not a fault of this request.
    const code = error.code === 'internal_error' ? 'transition_failed' : error.code;
    return new HeadsetdError(
      code,
      `The stream could not ${verb} and ${now}: node ${nodeId}: ${reason}. Fix the cause (${where}) and send ${signal} again.`,
      { ...error.details, ...(path === undefined ? {} : { path }), state, signal },
    );
  }
  const reason = errorMessage(error);
  return new HeadsetdError(
    'transition_failed',
    `The stream could not ${verb} and ${now}: ${reason}. See its status and the service log, then send a signal again.`,
    { state, signal, reason },
  );
}
