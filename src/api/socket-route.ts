/**
 * A WebSocket-only GET route: the upgrade goes to `onSocket`; a plain GET gets the error
 * envelope (400) saying how to connect, instead of @fastify/websocket's empty 404 (hence
 * `wsHandler` rather than `websocket: true`, which also keeps the route in the OpenAPI document).
 */
import type { FastifyInstance, FastifySchema } from 'fastify';
import { HeadsetdError } from '../core/errors.js';
import type { ClientSocket } from '../streams/runtime/socket-fanout.js';

export function socketRoute(
  app: FastifyInstance,
  url: string,
  schema: FastifySchema,
  onSocket: (socket: ClientSocket) => void,
): void {
  app.route({
    method: 'GET',
    url,
    schema,
    handler: async () => {
      throw new HeadsetdError(
        'invalid_request',
        `${url} is a WebSocket: connect with an upgrade request (for example: websocat ws://127.0.0.1:42069${url}).`,
        { path: '' },
      );
    },
    wsHandler: (socket) => {
      onSocket(socket);
    },
  });
}
