/**
 * Errors a node passes to `context.fail()` (or throws) to tell the supervisor what kind of end it
 * was. Any other error is a failure, restarted under the `on-failure` and `always` policies.
 */

/**
 * The node ended on its own without failing (an external process that exited with status 0).
 * Restarted only under the `always` policy.
 */
export class NodeEndedError extends Error {
  constructor(message = 'the node ended') {
    super(message);
    this.name = 'NodeEndedError';
  }
}

/**
 * A failure that a restart cannot cure (a filter impossible at the incoming sample rate): the node
 * goes straight to `error` whatever its restart policy.
 */
export class FatalNodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FatalNodeError';
  }
}

/**
 * A node cannot start because of one field of its config (a websocket's `port` already in use):
 * the runtime reports the field, so the API can point at it (`/nodes/1/config/port`).
 */
export class NodeConfigError extends Error {
  constructor(
    message: string,
    readonly field: string,
    /** The network port at fault, when the field names one. */
    readonly port?: number,
  ) {
    super(message);
    this.name = 'NodeConfigError';
  }
}

/** What the supervisor makes of an error. */
export function failureKind(error: unknown): 'ended' | 'fatal' | 'failure' {
  if (error instanceof NodeEndedError) return 'ended';
  if (error instanceof FatalNodeError) return 'fatal';
  return 'failure';
}
