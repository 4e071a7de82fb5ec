/**
 * Between headsetds: POST /stream/{streamId}/pipe forwards a quick stream's frames to another
 * headsetd's ingest WebSocket (only to hosts of the allow-list: 403 forbidden_origin otherwise),
 * DELETE ends it; the WebSocket /stream/{streamId}/ingest takes frames into an `ingest` node of a
 * running stream (a quick stream started with `source: "ingest"`, or any stream with an ingest
 * node, chosen with `?node=` when it has several).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { HeadsetdError } from '../../core/errors.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import type { ForwardRequest, QuickForwarding } from '../../streams/quick/forwarding.js';
import { PipeSchema, PipeStatusShape } from './schemas.js';

export interface ForwardRoutesOptions {
  /** The forwarding service (streams/quick/forwarding.ts): forwards out, ingest in. */
  forwarding: QuickForwarding;
  tags: string[];
}

type WithStream = { Params: { streamId: string } };
const StreamParams = Type.Object({ streamId: Type.String() });

export function forwardRoutes(app: FastifyInstance, options: ForwardRoutesOptions): void {
  const { forwarding, tags } = options;

  app.post<WithStream & { Body: ForwardRequest }>(
    '/stream/:streamId/pipe',
    {
      config: { accepts: ['json', 'yaml'] },
      schema: {
        tags,
        summary:
          "Forward a quick stream's frames to another headsetd's /stream/{streamId}/ingest (allow-listed hosts)",
        params: StreamParams,
        body: PipeSchema,
        response: {
          200: Type.Object({ success: Type.Literal(true), streamId: Type.String(), pipe: PipeStatusShape }),
          ...errorResponses(400, 403, 404, 409, 415, 422),
        },
      },
    },
    async (request) => ({ success: true, ...forwarding.start(request.params.streamId, request.body) }),
  );

  app.delete<WithStream>(
    '/stream/:streamId/pipe',
    {
      schema: {
        tags,
        summary: "End a quick stream's pipe",
        params: StreamParams,
        response: {
          200: Type.Object({ success: Type.Literal(true), streamId: Type.String(), pipe: PipeStatusShape }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => ({ success: true, ...forwarding.stop(request.params.streamId) }),
  );

  app.route<WithStream & { Querystring: { node?: string; token?: string } }>({
    method: 'GET',
    url: '/stream/:streamId/ingest',
    schema: {
      tags,
      summary:
        'WebSocket: send frames (JSON text form: {seq?, timestamp, sampleRate, channels, data[row][channel], discontinuity?, metadata?}; timestamp in ms since the epoch, 1985-01-01 to 2084-12-31 UTC) into the ingest node of a running stream; a refused frame closes the socket (1003, 1007, 1008) with the reason',
      params: StreamParams,
      querystring: Type.Object({
        node: Type.Optional(
          Type.String({ minLength: 1, description: 'The ingest node, when the stream has several' }),
        ),
        token: Type.Optional(Type.String()),
      }),
    },
    // Before the upgrade: an unknown stream, a stream without ingest node or not running is an HTTP error.
    preValidation: async (request) => {
      forwarding.checkIngest(request.params.streamId, request.query.node);
    },
    handler: async (request) => {
      throw new HeadsetdError(
        'invalid_request',
        `/stream/${request.params.streamId}/ingest is a WebSocket: connect with an upgrade request and send frames as JSON text.`,
        { path: '' },
      );
    },
    wsHandler: (socket, request) => {
      forwarding.serveIngest(socket, forwarding.ingestTarget(request.params.streamId, request.query.node));
    },
  });
}
