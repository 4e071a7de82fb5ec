/**
 * Error envelopes on a plain Node HTTP server (a websocket node's port, outside Fastify), shaped
 * as the API port answers them: the status of the error's code and `{success:false, error}` as JSON.
 */
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { HeadsetdError } from '../../core/errors.js';
import { httpStatus } from './statuses.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Answers an upgrade request with `error` instead of switching protocols, then closes the socket. */
export function refuseUpgrade(socket: Duplex, error: HeadsetdError): void {
  const body = JSON.stringify(error.toBody());
  const status = httpStatus(error);
  socket.on('error', () => {
    socket.destroy();
  });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Connection: close\r\n' +
      `Content-Type: ${JSON_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** Answers a plain request with `error`. */
export function sendErrorResponse(response: ServerResponse, error: HeadsetdError): void {
  const body = JSON.stringify(error.toBody());
  response.writeHead(httpStatus(error), {
    'content-type': JSON_TYPE,
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}
