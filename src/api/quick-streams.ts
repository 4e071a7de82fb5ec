/**
 * Quick EEG streams (docs/api.md §Quick EEG streams):
 * POST /stream/start makes and starts an ordinary stream of the engine (eeg-source → filter →
 * tap, see streams/quick-stream.ts), and these routes serve it: its frames on the WebSocket
 * /stream/{streamId}, its latest samples on /data, its figures on /status, /stop, and /pipe to
 * forward it to another headsetd's ingest WebSocket (routes in ./quick-streams/forward-routes.ts).
 * Registered at the root, beside the Streams API's `/stream/streams/...` routes.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { HeadsetdError } from '../core/errors.js';
import { errorResponses } from '../platform/schemas/responses.js';
import type { QuickStartBody } from '../streams/quick-stream.js';
import type { QuickForwarding } from '../streams/quick/forwarding.js';
import type { QuickStreams } from '../streams/quick/service.js';
import { forwardRoutes } from './quick-streams/forward-routes.js';
import { QuickStartSchema, StatusAnswer } from './quick-streams/schemas.js';
import { statusOf } from './quick-streams/status.js';

/**
 * The services quickStreamsPlugin calls, built by the service's composition root (src/service/services.ts).
 */
export interface QuickStreamsPluginOptions {
  /** Start, stop and look up quick streams (streams/quick/service.ts). */
  streams: QuickStreams;
  /** Forwards to other headsetds and ingest from them (streams/quick/forwarding.ts). */
  forwarding: QuickForwarding;
}

const tags = ['quick EEG streams'];
type WithStream = { Params: { streamId: string } };
const StreamParams = Type.Object({ streamId: Type.String({ description: 'The quick stream id (UUID).' }) });

export function quickStreamsPlugin(app: FastifyInstance, options: QuickStreamsPluginOptions): void {
  const { streams } = options;

  app.post<{ Body: QuickStartBody }>(
    '/stream/start',
    {
      config: { accepts: ['json', 'yaml'] },
      schema: {
        tags,
        summary: 'Start a quick EEG stream: eeg-source → filter → buffer and WebSocket /stream/{streamId}',
        body: QuickStartSchema,
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            streamId: Type.String(),
            config: Type.Record(Type.String(), Type.Unknown()),
            status: Type.String(),
          }),
          ...errorResponses(400, 409, 413, 415, 422, 503),
        },
      },
    },
    async (request) => ({ success: true, ...(await streams.start(request.body)) }),
  );

  app.route<WithStream>({
    method: 'GET',
    url: '/stream/:streamId',
    schema: {
      tags,
      summary:
        'WebSocket: {timestamp, data[row][channel] µV, channels, seq, sampleRate, discontinuity?} per frame of a quick stream',
      params: StreamParams,
    },
    // Before the upgrade, so an unknown or other stream is a plain 404 envelope.
    preValidation: async (request) => {
      streams.resolve(request.params.streamId);
    },
    handler: async (request) => {
      throw new HeadsetdError(
        'invalid_request',
        `/stream/${request.params.streamId} is a WebSocket: connect with an upgrade request (for example: websocat ws://127.0.0.1:42069/stream/${request.params.streamId}).`,
        { path: '' },
      );
    },
    wsHandler: (socket, request) => {
      const { entry, session } = streams.resolve(request.params.streamId);
      if (session.stopTime !== undefined || entry.state === 'error') {
        socket.close(1001, 'The stream is not running.');
        return;
      }
      session.addClient(socket);
    },
  });

  app.get<WithStream & { Querystring: { limit?: number } }>(
    '/stream/:streamId/data',
    {
      schema: {
        tags,
        summary: 'The latest samples of a quick stream (at most `limit`, default one second)',
        params: StreamParams,
        querystring: Type.Object(
          { limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Samples (rows) wanted.' })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            timestamp: Type.Union([Type.Number(), Type.Null()]),
            channels: Type.Array(Type.String()),
            data: Type.Array(
              Type.Array(
                Type.Union([
                  Type.Number(),
                  Type.Literal('NaN'),
                  Type.Literal('Infinity'),
                  Type.Literal('-Infinity'),
                ]),
              ),
              {
                description:
                  'Rows of samples; NaN and ±Infinity as the strings "NaN", "Infinity", "-Infinity".',
              },
            ),
            units: Type.Optional(
              Type.Array(Type.String(), {
                description:
                  "Each channel's unit, one per channel; present only when some channel is not in µV (a device's accelerometer, say).",
              }),
            ),
          }),
          ...errorResponses(400, 404, 422),
        },
      },
    },
    async (request) => {
      const { session } = streams.resolve(request.params.streamId);
      const latest = session.ring.latest(request.query.limit ?? session.config.sampleRate);
      const channels = latest.channels.length > 0 ? latest.channels : [...session.channels];
      return {
        success: true,
        timestamp: latest.timestamp,
        channels,
        data: latest.data,
        ...(latest.units === undefined ? {} : { units: latest.units }),
      };
    },
  );

  app.get<WithStream>(
    '/stream/:streamId/status',
    {
      schema: {
        tags,
        summary: 'State and figures of a quick stream (samples, rate, clients, recording, pipe)',
        params: StreamParams,
        response: { 200: StatusAnswer, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { entry, session, runtime, live } = streams.view(request.params.streamId);
      return statusOf(entry, session, runtime, live);
    },
  );

  app.post<WithStream>(
    '/stream/:streamId/stop',
    {
      config: { accepts: ['json', 'form'] },
      schema: {
        tags,
        summary:
          'Stop a quick stream (kept, stopped: /data and /status stay readable; DELETE /stream/streams/{id} removes it)',
        params: StreamParams,
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            streamId: Type.String(),
            status: Type.String(),
            duration: Type.Number({ description: 'Seconds the run lasted.' }),
            samples: Type.Integer(),
          }),
          ...errorResponses(404, 409, 415),
        },
      },
    },
    async (request) => ({ success: true, ...(await streams.stop(request.params.streamId)) }),
  );

  forwardRoutes(app, { forwarding: options.forwarding, tags });
}
