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

/** What the supervisor makes of an error. */
export function failureKind(error: unknown): 'ended' | 'fatal' | 'failure' {
  if (error instanceof NodeEndedError) return 'ended';
  if (error instanceof FatalNodeError) return 'fatal';
  return 'failure';
}

/** A one-line message for a person from anything thrown. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'unknown error';
}
