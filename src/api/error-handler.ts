/**
 * The one place errors become HTTP answers: every non-2xx response is the envelope of
 * docs/api.md §Errors, including Fastify's own errors (body too large, bad content type, schema
 * validation), unknown paths (404) and known paths with the wrong method (405). A 500 never carries
 * a stack trace or a path; the cause goes to the log.
 *
 * And the one rule of the log for failures (`logFailure`): a client's error (4xx) is the client's,
 * logged at info (warn when no answer told it) with its code and message and no stack; a fault of
 * the service (5xx, or anything not of the catalogue) at error with its cause's stack.
 */
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorMessage } from '../core/error-message.js';
import { HeadsetdError, isHeadsetdError } from '../core/errors.js';
import { httpStatus } from '../platform/http/statuses.js';
import { issuesFromAjv, issuesToError } from '../platform/schemas/validator.js';

function fromFastify(error: FastifyError, request: FastifyRequest): HeadsetdError | undefined {
  if (error.validation !== undefined) {
    const context = error.validationContext ?? 'body';
    const base = context === 'body' ? '' : `/${context}`;
    // Fastify names the query string `querystring` in errors but keeps it as `request.query`: the
    // value quoted in the message is read from there ("got undefined" otherwise).
    const key = context === 'querystring' ? 'query' : context;
    const root = (request as unknown as Record<string, unknown>)[key];
    const subject = context === 'body' ? 'The body' : `The ${context === 'querystring' ? 'query' : context}`;
    return issuesToError(issuesFromAjv(error.validation as never, root, base), subject);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HeadsetdError('payload_too_large', 'The body is larger than 1 MiB; send less.', {
        limitBytes: 1024 * 1024,
      });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HeadsetdError(
        'unsupported_media_type',
        `The Content-Type '${request.headers['content-type'] ?? ''}' is not accepted here.`,
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new HeadsetdError('invalid_request', 'The JSON body is empty.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new HeadsetdError('invalid_request', 'The Content-Length does not match the body.');
    default:
      break;
  }
  if (error.statusCode === 413)
    return new HeadsetdError('payload_too_large', 'The body is larger than the limit.');
  if (error.statusCode === 415) return new HeadsetdError('unsupported_media_type', error.message);
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new HeadsetdError('invalid_request', error.message);
  }
  return undefined;
}

/**
 * Logs a failure by the one rule (docs/api.md §Errors, "In the log"): a catalogue error of a 4xx
 * status at `clientLevel` (info for one the answer tells the client; warn for one of work that went
 * on after the answer, which no answer tells), as its code and status without the error object,
 * so without a stack: the client sent something wrong, the service did not fail. Anything else
 * (a 5xx, or an error not of the catalogue) is a fault of the service: at error, with its stack.
 */
export function logFailure(
  log: FastifyBaseLogger,
  failure: unknown,
  message: string,
  clientLevel: 'info' | 'warn' = 'info',
): void {
  if (isHeadsetdError(failure) && httpStatus(failure) < 500) {
    log[clientLevel]({ code: failure.code, statusCode: httpStatus(failure) }, message);
  } else {
    log.error({ err: failure }, message);
  }
}

/**
 * Answers `error` as the envelope and logs it: a 4xx as the answer tells it, a 5xx by `cause`,
 * what was thrown (its stack; an `internal_error` answers anything not of the catalogue).
 */
export function sendError(reply: FastifyReply, error: HeadsetdError, cause: unknown = error): FastifyReply {
  const failure = httpStatus(error) < 500 ? error : cause;
  logFailure(
    reply.log,
    failure,
    isHeadsetdError(failure) ? failure.message : `unexpected error: ${errorMessage(failure)}`,
  );
  if (error.code === 'method_not_allowed' && Array.isArray(error.details?.allowed)) {
    void reply.header('Allow', (error.details.allowed as string[]).join(', '));
  }
  return reply.status(httpStatus(error)).type('application/json; charset=utf-8').send(error.toBody());
}

/** Route patterns by method, to tell 405 from 404. */
class RouteTable {
  private readonly routes: { method: string; pattern: RegExp }[] = [];

  add(methods: string | string[], url: string): void {
    const source = url
      .split('/')
      .map((part) =>
        part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    const pattern = new RegExp(`^${source}/?$`);
    for (const method of Array.isArray(methods) ? methods : [methods]) this.routes.push({ method, pattern });
  }

  methodsFor(path: string): string[] {
    return [...new Set(this.routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
  }
}

export interface ErrorHandlingOptions {
  /** Adds what only the API knows to an error before it is answered (the streams holding the device). */
  explain?: (error: HeadsetdError) => HeadsetdError;
}

export function installErrorHandling(app: FastifyInstance, options: ErrorHandlingOptions = {}): void {
  const explain = options.explain ?? ((error: HeadsetdError) => error);
  const table = new RouteTable();
  app.addHook('onRoute', (route) => {
    table.add(route.method, route.url);
  });

  app.setErrorHandler((error: FastifyError | HeadsetdError, request, reply) => {
    if (isHeadsetdError(error)) return sendError(reply, explain(error), error);
    const known = fromFastify(error, request);
    if (known !== undefined) return sendError(reply, known);
    return sendError(
      reply,
      new HeadsetdError('internal_error', 'An internal error occurred; the details are in the service log.'),
      error,
    );
  });

  // A request no route takes is answered 404/405 before its body is looked at: without this the
  // body's content type was judged first (no route accepts any), and `PATCH /stream/streams` with
  // a JSON body answered 415 instead of 405.
  // A callback hook (every request passes here; an async one cost a promise each).
  app.addHook('preParsing', (request, _reply, payload, done) => {
    if (request.is404) done(unroutedError(table, request));
    else done(null, payload);
  });

  app.setNotFoundHandler((request, reply) => sendError(reply, unroutedError(table, request)));
}

/** 405 for a known path with another method, else 404. */
function unroutedError(table: RouteTable, request: FastifyRequest): HeadsetdError {
  const path = request.url.split('?')[0] ?? '';
  const methods = table.methodsFor(path).filter((m) => m !== 'HEAD');
  if (methods.length > 0) {
    return new HeadsetdError(
      'method_not_allowed',
      `${request.method} is not allowed on ${path}; use ${methods.join(', ')}.`,
      { allowed: methods },
    );
  }
  return new HeadsetdError(
    'not_found',
    `Nothing is served at ${request.method} ${path}; see /docs for the API.`,
  );
}
