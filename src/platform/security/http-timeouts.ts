/**
 * How long an HTTP server of headsetd (the API's port, a websocket node's port) lets a request's
 * headers take to arrive, and how often Node checks: a client that sends them slowly, or never
 * finishes them, holds its connection at most HEADERS_TIMEOUT_MS + HEADERS_CHECK_INTERVAL_MS.
 */

/** Headers that take longer than this to arrive are answered 408 and the connection closed. */
export const HEADERS_TIMEOUT_MS = 60_000;

/**
 * How often Node looks for connections past the headers timeout: the close comes at most this
 * long after it. Node's default, 30 s, let slow headers hold a connection 60 to 90 s.
 */
export const HEADERS_CHECK_INTERVAL_MS = 1000;

/** Node's server options for the headers timeout: the timeout, and a check a few times within it. */
export function headersTimeouts(timeoutMs = HEADERS_TIMEOUT_MS): {
  headersTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    headersTimeout: timeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(HEADERS_CHECK_INTERVAL_MS, Math.floor(timeoutMs / 4))),
  };
}
