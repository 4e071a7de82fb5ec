/**
 * The error catalog: every error the service answers with has a stable code and a default message
 * here (docs/api.md §Error codes lists them for users); the HTTP status of each code is the HTTP
 * layer's (platform/http/statuses.ts). Code anywhere below the
 * API throws `HeadsetdError`; the API's one error handler renders it as the envelope
 * `{success: false, error: {code, message, details?}}`.
 */

export const ERROR_CATALOG = {
  invalid_request: { message: 'The request is malformed.' },
  authentication_required: { message: 'A valid bearer token is required.' },
  executable_not_allowed: {
    message: 'The executable lies outside the allowed executables directories.',
  },
  forbidden_origin: { message: 'Requests from this origin or host are not allowed.' },
  stream_not_found: { message: 'No stream has this id.' },
  node_not_found: { message: 'No node has this id in the stream.' },
  pipe_not_found: { message: 'No pipe has this id in the stream.' },
  forward_not_found: { message: 'This quick stream forwards to no other headsetd.' },
  recording_not_found: { message: 'No recording has this name.' },
  session_not_found: { message: 'No session has this id.' },
  job_not_found: { message: 'No job has this id.' },
  not_found: { message: 'Nothing is served at this path.' },
  method_not_allowed: { message: 'This method is not allowed on this path.' },
  stream_exists: { message: 'A stream with this id already exists.' },
  node_exists: { message: 'A node with this id already exists in the stream.' },
  pipe_exists: { message: 'A pipe with this id already exists in the stream.' },
  invalid_state: { message: 'This signal is not possible in the current state.' },
  device_busy: { message: 'The device is busy with another operation.' },
  channels_unavailable: {
    message: 'The device does not acquire the channels asked for; enable them or name others.',
  },
  not_supported: {
    message: 'The device has no such part: this path serves only devices that have it.',
  },
  transition_failed: {
    message: 'The stream could not complete the transition; its status says where it is now.',
  },
  operation_cancelled: { message: 'The operation was cancelled before it finished.' },
  precondition_failed: {
    message:
      'The stream changed since it was read (it is no longer at the revision the edit named); nothing was changed.',
  },
  payload_too_large: { message: 'The request body is larger than the limit.' },
  unsupported_media_type: { message: 'This content type is not accepted here.' },
  validation_failed: { message: 'The request is well-formed but invalid.' },
  unknown_executable: { message: 'The executable resolves to nothing.' },
  rate_limit_exceeded: { message: 'Too many requests; slow down.' },
  // Answered for a connection whose HTTP Node's parser refused, before any route ran (client-error.ts).
  request_timeout: { message: 'The request did not arrive in time.' },
  headers_too_large: { message: 'The request headers (with the URL) are too large.' },
  internal_error: { message: 'An internal error occurred.' },
  device_unavailable: { message: 'The device is not responding.' },
  storage_error: {
    message: 'The store could not be written; nothing was changed. Check the data directory.',
  },
  storage_full: {
    message: 'The store is full; nothing was changed. Free space in the data directory.',
  },
} as const satisfies Record<string, { message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export type ErrorDetails = Record<string, unknown>;

/** The one error class of the service: a catalog code, a message for a person, optional details. */
export class HeadsetdError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message?: string, details?: ErrorDetails) {
    super(message ?? ERROR_CATALOG[code].message);
    this.name = 'HeadsetdError';
    this.code = code;
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
