/**
 * The HTTP status of each error code of the catalog (core/errors.ts keeps the codes and their
 * messages): the API's error handler and the plain Node servers (platform/http/answers.ts) answer with it.
 */
import type { ErrorCode, HeadsetdError } from '../../core/errors.js';

export const HTTP_STATUS = {
  invalid_request: 400,
  authentication_required: 401,
  executable_not_allowed: 403,
  forbidden_origin: 403,
  stream_not_found: 404,
  node_not_found: 404,
  pipe_not_found: 404,
  forward_not_found: 404,
  recording_not_found: 404,
  session_not_found: 404,
  job_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  stream_exists: 409,
  node_exists: 409,
  pipe_exists: 409,
  invalid_state: 409,
  device_busy: 409,
  channels_unavailable: 409,
  // The request is sound, but the attached device lacks the part it needs (docs/devices.md
  // §Capabilities): a conflict with the device, not a fault of the service (not 501) nor an
  // unknown path (not 404: the path exists and serves devices that have the part).
  not_supported: 409,
  transition_failed: 409,
  operation_cancelled: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  unknown_executable: 422,
  rate_limit_exceeded: 429,
  request_timeout: 408,
  headers_too_large: 431,
  internal_error: 500,
  device_unavailable: 503,
  storage_error: 503,
  storage_full: 507,
} as const satisfies Record<ErrorCode, number>;

/** The HTTP status an error answers with. */
export function httpStatus(error: HeadsetdError | ErrorCode): number {
  return HTTP_STATUS[typeof error === 'string' ? error : error.code];
}
