/**
 * Quick EEG streams (docs/api.md §Quick EEG streams):
 * POST /stream/start makes and starts an ordinary stream of the engine (eeg-source → filter →
 * tap, see streams/quick-stream.ts), and these routes serve it: its frames on the WebSocket
 * /stream/{streamId}, its latest samples on /data, its figures on /status, /stop, and /pipe to
 * forward it to another headsetd's ingest WebSocket (routes in ./quick-streams/pipe-routes.ts).
 * Registered at the root, beside the Streams API's `/stream/streams/...` routes.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { HeadsetdError } from '../errors/catalog.js';
import { errorResponses } from '../schemas/responses.js';
import type { SignalTicket, StreamEntry, StreamManager } from '../streams/manager.js';
import {
  parseQuickStart,
  type QuickStartBody,
  type QuickStreamConfig,
  quickStreamDocument,
} from '../streams/quick-stream.js';
import { channelsUnavailable } from '../device/frame-source.js';
import type { StreamRuntime } from '../runtime/port.js';
import { pipeRoutes } from './quick-streams/pipe-routes.js';
import { QuickRegistry } from '../quick-streams/registry.js';
import { QuickStartSchema, StatusAnswer } from './quick-streams/schemas.js';
import type { QuickSession } from '../quick-streams/session.js';
import { statusOf } from './quick-streams/status.js';
import { settleWithin } from '../core/deadline.js';

/** What quickStreamsPlugin needs; server.ts wires it. */
export interface QuickStreamsPluginOptions {
  /** The service's stream manager: quick streams are ordinary streams of it. */
  manager: StreamManager;
  /** The runtime that manager drives: `tap` brings the frames to this thread, `feed` ingests. */
  runtime: Pick<StreamRuntime, 'tap' | 'feed'>;
  /**
   * Hosts POST /stream/{streamId}/pipe may forward to (names or addresses, case-insensitive;
   * IPv6 without brackets). Default: loopback only, {@link DEFAULT_PIPE_ALLOWED_HOSTS}.
   */
  pipeAllowedHosts?: readonly string[];
  /** The token sent as `?token=` to a pipe's target when the request names none. */
  pipeToken?: string;
  /** Unsent bytes per WebSocket client above which it loses frames (default 1 MiB). */
  clientSendLimitBytes?: number;
  /** How long POST /stream/start and /stop wait for the transition (default 20 s). */
  transitionTimeoutMs?: number;
  /**
   * The channels the device acquires now (Headset.eeg.acquiredChannels): an EEG quick stream that
   * names others is refused before it is made. Absent: only the eeg-source's own start checks.
   */
  acquiredChannels?: () => readonly string[];
}

/** 409 channels_unavailable for an EEG quick stream naming channels the device does not acquire. */
function assertAcquired(config: QuickStreamConfig, body: QuickStartBody, acquired: readonly string[]): void {
  if (config.source !== 'eeg') return;
  const refusal = channelsUnavailable(config.channels, acquired);
  if (refusal === undefined) return;
  const { field, ...details } = refusal.details ?? {};
  // A list points at the first channel not acquired; a string, or the default, at `channels`.
  const path = Array.isArray(body.channels) ? `/${String(field)}` : '/channels';
  const defaulted =
    body.channels === undefined
      ? ` (channels was not given, so it asked for all ${config.channels.length} EEG electrodes)`
      : '';
  throw new HeadsetdError(refusal.code, `${refusal.message}${defaulted}.`, { ...details, path });
}

export const DEFAULT_PIPE_ALLOWED_HOSTS: readonly string[] = ['127.0.0.1', '::1', 'localhost'];
const DEFAULT_TRANSITION_TIMEOUT_MS = 20_000;

const tags = ['quick EEG streams'];
type WithStream = { Params: { streamId: string } };
const StreamParams = Type.Object({ streamId: Type.String({ description: 'The quick stream id (UUID).' }) });

/**
 * Waits for a signal's transition to end, at most `timeoutMs`; the stream's state tells how it
 * ended, and the answer is the transition's error when it failed in time.
 */
async function settled(ticket: SignalTicket, timeoutMs: number): Promise<HeadsetdError | undefined> {
  const result = await settleWithin(ticket.outcome, timeoutMs);
  return result.done ? result.value : undefined;
}

function stoppedAnswer(entry: StreamEntry, session: QuickSession) {
  return {
    success: true as const,
    streamId: entry.definition.id,
    status: entry.state,
    duration: session.duration(),
    samples: session.samples,
  };
}

export function quickStreamsPlugin(app: FastifyInstance, options: QuickStreamsPluginOptions): void {
  const { manager } = options;
  const timeoutMs = options.transitionTimeoutMs ?? DEFAULT_TRANSITION_TIMEOUT_MS;
  const registry = new QuickRegistry(manager, options.runtime, options.clientSendLimitBytes);
  app.addHook('onClose', async () => {
    registry.close();
  });

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
    async (request) => {
      const config = parseQuickStart(request.body);
      if (options.acquiredChannels !== undefined) {
        assertAcquired(config, request.body, options.acquiredChannels());
      }
      registry.assertBufferRoom(config);
      const definition = manager.create(quickStreamDocument(config));
      const entry = manager.get(definition.id);
      const session = registry.sessionOf(entry);
      session?.beginRun();
      const failure = await settled(manager.signal(definition.id, 'start'), timeoutMs);
      if (entry.state !== 'running') {
        const reason = entry.error ?? `it is still ${entry.state} after ${timeoutMs / 1000} s`;
        await manager.remove(definition.id).catch(() => undefined);
        registry.drop(definition.id, 'The stream could not start.');
        // The device's configuration changed between the check above and the start.
        if (failure?.code === 'channels_unavailable') {
          const why = typeof failure.details?.reason === 'string' ? failure.details.reason : reason;
          throw new HeadsetdError('channels_unavailable', `${why}.`, {
            channels: failure.details?.channels,
            acquired: failure.details?.acquired,
            path: '/channels',
          });
        }
        throw new HeadsetdError('device_unavailable', `The quick stream could not start: ${reason}`, {
          reason,
        });
      }
      return { success: true, streamId: definition.id, config, status: entry.state };
    },
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
      registry.resolve(request.params.streamId);
    },
    handler: async (request) => {
      throw new HeadsetdError(
        'invalid_request',
        `/stream/${request.params.streamId} is a WebSocket: connect with an upgrade request (for example: websocat ws://127.0.0.1:42069/stream/${request.params.streamId}).`,
        { path: '' },
      );
    },
    wsHandler: (socket, request) => {
      const { entry, session } = registry.resolve(request.params.streamId);
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
            data: Type.Array(Type.Array(Type.Number())),
          }),
          ...errorResponses(400, 404, 422),
        },
      },
    },
    async (request) => {
      const { session } = registry.resolve(request.params.streamId);
      const latest = session.ring.latest(request.query.limit ?? session.config.sampleRate);
      const channels = latest.channels.length > 0 ? latest.channels : [...session.channels];
      return { success: true, timestamp: latest.timestamp, channels, data: latest.data };
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
      const { entry, session } = registry.resolve(request.params.streamId);
      return statusOf(entry, session, manager.runtimeStatus(entry), manager.isLive(entry));
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
    async (request) => {
      const { entry, session } = registry.resolve(request.params.streamId);
      await settled(manager.signal(entry.definition.id, 'stop'), timeoutMs);
      session.endRun();
      return stoppedAnswer(entry, session);
    },
  );

  pipeRoutes(app, {
    registry,
    manager,
    runtime: options.runtime,
    allowedHosts: options.pipeAllowedHosts ?? DEFAULT_PIPE_ALLOWED_HOSTS,
    ...(options.pipeToken === undefined ? {} : { token: options.pipeToken }),
    tags,
  });
}
