/**
 * How a client command fails, and the exit code each kind of failure gives (docs/cli.md §Exit
 * codes): scripts tell a mistake in the command line from a refusal of the service and from a
 * service that cannot be reached, without parsing messages.
 */
import type { Stream } from './output.js';

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

/**
 * The last word of the `headsetd` command on an error that no command turned into an exit code
 * (a defect, or a service command's failure such as a port in use): `headsetd: MESSAGE` on stderr;
 * returns the exit code, 1. The process (src/cli.ts) ends with it, and so do the tests that run a
 * client command in their own process, so they see what a user sees.
 */
export function reportFailure(error: unknown, stderr: Stream): number {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message =
    code === 'EADDRINUSE'
      ? `the address is already in use (${(error as Error).message.replace(/^.*EADDRINUSE: /, '')}); choose another with --port`
      : // The catalogue's errors too (HeadsetdError is an Error).
        error instanceof Error
        ? error.message
        : String(error);
  stderr.write(`headsetd: ${message}\n`);
  return EXIT.api;
}
