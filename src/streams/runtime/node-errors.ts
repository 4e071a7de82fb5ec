/**
 * Errors a node passes to `context.fail()` (or throws) to tell the supervisor what kind of end it
 * was. Any other error is a failure, restarted under the `on-failure` and `always` policies.
 *
 * They are catalogue errors (`validation_failed`, 422): thrown while a node starts (a stream's
 * start, an edit, a node's `start` or `restart` signal) they are answered to the client, through
 * `nodeStartError` (running-graph.ts), as the node's failure with its reason and the field at fault.
 */
import { HeadsetdError } from '../../core/errors.js';

/**
 * The node ended on its own without failing (an external process that exited with status 0).
 * Restarted only under the `always` policy.
 */
export class NodeEndedError extends HeadsetdError {
  constructor(message = 'the node ended') {
    super('validation_failed', message);
    this.name = 'NodeEndedError';
  }
}

/**
 * A failure that a restart cannot cure (a filter impossible at the incoming sample rate): the node
 * goes straight to `error` whatever its restart policy.
 */
export class FatalNodeError extends HeadsetdError {
  constructor(message: string) {
    super('validation_failed', message);
    this.name = 'FatalNodeError';
  }
}

/**
 * A node cannot start because of one field of its config (a websocket's `port` already in use):
 * the runtime reports the field, so the API can point at it (`/nodes/1/config/port`).
 */
export class NodeConfigError extends HeadsetdError {
  constructor(
    message: string,
    readonly field: string,
    /** The network port at fault, when the field names one. */
    readonly port?: number,
  ) {
    super('validation_failed', message, port === undefined ? { field } : { field, port });
    this.name = 'NodeConfigError';
  }
}

/** What the supervisor makes of an error. */
export function failureKind(error: unknown): 'ended' | 'fatal' | 'failure' {
  if (error instanceof NodeEndedError) return 'ended';
  if (error instanceof FatalNodeError) return 'fatal';
  return 'failure';
}
