/**
 * The error catalog: every error the service answers with has a stable code, an HTTP status and a
 * default message here (docs/api.md §Error codes lists them for users). Code anywhere below the
 * API throws `HeadsetdError`; the API's one error handler renders it as the envelope
 * `{success: false, error: {code, message, details?}}`.
 */

export const ERROR_CATALOG = {
  invalid_request: { status: 400, message: 'The request is malformed.' },
  authentication_required: { status: 401, message: 'A valid bearer token is required.' },
  executable_not_allowed: {
    status: 403,
    message: 'The executable lies outside the allowed executables directories.',
  },
  forbidden_origin: { status: 403, message: 'Requests from this origin or host are not allowed.' },
  stream_not_found: { status: 404, message: 'No stream has this id.' },
  node_not_found: { status: 404, message: 'No node has this id in the stream.' },
  pipe_not_found: { status: 404, message: 'No pipe has this id in the stream.' },
  forward_not_found: { status: 404, message: 'This quick stream forwards to no other headsetd.' },
  recording_not_found: { status: 404, message: 'No recording has this name.' },
  session_not_found: { status: 404, message: 'No session has this id.' },
  job_not_found: { status: 404, message: 'No job has this id.' },
  not_found: { status: 404, message: 'Nothing is served at this path.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed on this path.' },
  stream_exists: { status: 409, message: 'A stream with this id already exists.' },
  node_exists: { status: 409, message: 'A node with this id already exists in the stream.' },
  pipe_exists: { status: 409, message: 'A pipe with this id already exists in the stream.' },
  invalid_state: { status: 409, message: 'This signal is not possible in the current state.' },
  device_busy: { status: 409, message: 'The device is busy with another operation.' },
  channels_unavailable: {
    status: 409,
    message: 'The device does not acquire the channels asked for; enable them or name others.',
  },
  transition_failed: {
    status: 409,
    message: 'The stream could not complete the transition; its status says where it is now.',
  },
  operation_cancelled: { status: 409, message: 'The operation was cancelled before it finished.' },
  precondition_failed: {
    status: 412,
    message: 'The stream changed since it was read (its ETag differs from If-Match); nothing was changed.',
  },
  payload_too_large: { status: 413, message: 'The request body is larger than the limit.' },
  unsupported_media_type: { status: 415, message: 'This content type is not accepted here.' },
  validation_failed: { status: 422, message: 'The request is well-formed but invalid.' },
  unknown_executable: { status: 422, message: 'The executable resolves to nothing.' },
  rate_limit_exceeded: { status: 429, message: 'Too many requests; slow down.' },
  // Answered for a connection whose HTTP Node's parser refused, before any route ran (client-error.ts).
  request_timeout: { status: 408, message: 'The request did not arrive in time.' },
  headers_too_large: { status: 431, message: 'The request headers (with the URL) are too large.' },
  internal_error: { status: 500, message: 'An internal error occurred.' },
  device_unavailable: { status: 503, message: 'The device is not responding.' },
  storage_error: {
    status: 503,
    message: 'The store could not be written; nothing was changed. Check the data directory.',
  },
  storage_full: {
    status: 507,
    message: 'The store is full; nothing was changed. Free space in the data directory.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export type ErrorDetails = Record<string, unknown>;

/** The one error class of the service: a catalog code, a message for a person, optional details. */
export class HeadsetdError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message?: string, details?: ErrorDetails) {
    super(message ?? ERROR_CATALOG[code].message);
    this.name = 'HeadsetdError';
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.details = details;
  }

  /** The envelope body (docs/api.md §Errors). */
  toBody(): ErrorBody {
    return {
      success: false,
      error: {
        code: this.code,
        message: this.message,
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    };
  }
}

export interface ErrorBody {
  success: false;
  error: { code: string; message: string; details?: ErrorDetails };
}

export function isHeadsetdError(value: unknown): value is HeadsetdError {
  return value instanceof HeadsetdError;
}
