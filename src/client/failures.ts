/**
 * How a client command fails, and the exit code each kind of failure gives (docs/cli.md §Exit
 * codes): scripts tell a mistake in the command line from a refusal of the service and from a
 * service that cannot be reached, without parsing messages.
 */

export const EXIT = {
  /** Done. */
  ok: 0,
  /** The service answered with its error envelope (a 4xx or 5xx), or an operation it ran failed. */
  api: 1,
  /** The command line is wrong: an unknown command or option, a missing argument, an unreadable file. */
  usage: 2,
  /** The service could not be reached, or the connection was lost. */
  connection: 3,
  /**
   * The operation ran to its end but did not reach its goal (`seat`: an electrode is still above
   * the target impedance), as `kubectl wait` fails when its condition is not met.
   */
  notMet: 4,
  /** Interrupted (Ctrl-C) before the operation ended; a long operation is cancelled first. */
  interrupted: 130,
} as const;

/** A mistake in the command line. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The service could not be reached, or dropped the connection. */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
}

/** The error envelope of the API: `{success: false, error: {code, message, details}}`. */
export interface ErrorEnvelope {
  success: false;
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/**
 * An answer of the service that is not a success, carrying its envelope; `status` 0 for an
 * operation the service ran as a job and reported failed.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly envelope: ErrorEnvelope,
  ) {
    super(envelope.error.message);
  }

  get code(): string {
    return this.envelope.error.code;
  }

  get details(): Record<string, unknown> {
    return this.envelope.error.details ?? {};
  }
}

/** The envelope of an answer, or one made up for an answer that carries none (a proxy's page). */
export function envelopeOf(status: number, text: string): ErrorEnvelope {
  try {
    const body = JSON.parse(text) as Partial<ErrorEnvelope>;
    if (
      body.success === false &&
      typeof body.error?.message === 'string' &&
      typeof body.error.code === 'string'
    )
      return body as ErrorEnvelope;
  } catch {
    // Not JSON: described below.
  }
  const excerpt = text.trim().slice(0, 200);
  return {
    success: false,
    error: {
      code: 'unexpected_answer',
      message: `The service answered HTTP ${status} without an error envelope${excerpt === '' ? '' : `: ${excerpt}`}`,
    },
  };
}

/**
 * The lines a person reads for an API error: the message, then where (the JSON pointer of
 * `details.path`), then the other problems of `details.errors`.
 */
export function describeApiError(error: ApiError): string[] {
  const status = error.status > 0 ? `, HTTP ${String(error.status)}` : '';
  const lines = [`${error.message} (${error.code}${status})`];
  const details = error.details;
  if (typeof details.path === 'string' && details.path !== '') {
    const where = [`at ${details.path}`];
    if (typeof details.line === 'number') where.push(`line ${String(details.line)}`);
    if (typeof details.column === 'number') where.push(`column ${String(details.column)}`);
    lines.push(`  ${where.join(', ')}`);
  }
  if (Array.isArray(details.errors)) {
    for (const problem of details.errors.slice(1, 10) as { path?: string; message?: string }[]) {
      lines.push(`  also: ${problem.path ?? ''}: ${problem.message ?? ''}`);
    }
  }
  return lines;
}
