/**
 * Requests that Node's HTTP parser refuses before Fastify sees them (headers or URL over the size
 * limit, malformed HTTP, headers that never finish arriving) are answered here, on the raw socket,
 * with the same error envelope as every other error: Fastify's default writes a body of its own.
 */
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { HeadsetdError } from '../core/errors.js';
import { httpStatus } from '../platform/http/statuses.js';

/** The error a parser failure stands for (Node's codes: HPE_* from llhttp, ERR_HTTP_REQUEST_TIMEOUT). */
export function clientErrorFor(code: string | undefined): HeadsetdError {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new HeadsetdError(
      'headers_too_large',
      `The request line and headers are larger than ${maxHeaderSize} bytes; send a shorter URL or fewer headers.`,
      { limitBytes: maxHeaderSize },
    );
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new HeadsetdError(
      'request_timeout',
      'The request headers did not arrive in time; send the whole request at once.',
    );
  }
  return new HeadsetdError(
    'invalid_request',
    `The request is not valid HTTP/1.1 (${code ?? 'unknown parser error'}); check the request line and headers.`,
    { reason: code ?? 'unknown' },
  );
}

/** A whole HTTP response carrying the envelope of `error`; the connection is closed after it. */
export function clientErrorResponse(error: HeadsetdError): string {
  const body = JSON.stringify(error.toBody());
  const status = httpStatus(error);
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** The server's `clientError` handler (Fastify's `clientErrorHandler` option). */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Like Node's own handler: never write into a response whose headers are already on the wire.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && inFlight?.headersSent !== true) {
    socket.write(clientErrorResponse(clientErrorFor(error.code)));
    // Closed once the answer is written, even if the client never closes its side.
    socket.destroySoon();
    return;
  }
  socket.destroy();
}
