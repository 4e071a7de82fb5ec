/**
 * Between headsetds: POST /stream/{streamId}/pipe forwards a quick stream's frames to another
 * headsetd's ingest WebSocket (only to hosts of the allow-list: 403 forbidden_origin otherwise),
 * DELETE ends it; the WebSocket /stream/{streamId}/ingest takes frames into an `ingest` node of a
 * running stream (a quick stream started with `source: "ingest"`, or any stream with an ingest
 * node, chosen with `?node=` when it has several).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { HeadsetdError } from '../../errors/catalog.js';
import { errorResponses } from '../../schemas/responses.js';
import type { StreamEntry, StreamManager } from '../../streams/manager.js';
import type { NodeDef } from '../../core/stream-model.js';
import { isUuid } from '../../core/uuid.js';
import type { StreamRuntime } from '../../runtime/port.js';
import type { ClientSocket } from '../../runtime/socket-fanout.js';
import {
  CLOSE,
  closeReason,
  type IngestExpectation,
  mismatch,
  parseIngestMessage,
} from '../../quick-streams/ingest-message.js';
import { PipeSender } from '../../quick-streams/pipe-sender.js';
import type { QuickRegistry } from '../../quick-streams/registry.js';
import { isActive } from '../../quick-streams/registry.js';
import { PipeSchema, PipeStatusShape } from './schemas.js';

export interface PipeRoutesOptions {
  registry: QuickRegistry;
  manager: StreamManager;
  runtime: Pick<StreamRuntime, 'feed'>;
  allowedHosts: readonly string[];
  token?: string;
  tags: string[];
}

interface PipeBody {
  target: { host: string; port: number; streamId: string; token?: string };
  format?: 'json';
  metadata?: { includeChannelMetadata?: boolean };
}

type WithStream = { Params: { streamId: string } };
const StreamParams = Type.Object({ streamId: Type.String() });

/** Host names compare lower case, IPv6 addresses without brackets. */
function normalHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
}

/** A socket that also hears messages (a `ws` WebSocket). */
type IngestSocket = ClientSocket & {
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): unknown;
};

/** The ingest node a socket feeds: the one named by `?node=`, else the stream's only one. */
function ingestNode(entry: StreamEntry, wanted: string | undefined): NodeDef {
  const nodes = entry.definition.nodes.filter((n) => n.executable === 'ingest');
  if (wanted !== undefined) {
    const node = nodes.find((n) => n.id === wanted);
    if (node === undefined) {
      throw new HeadsetdError(
        'node_not_found',
        `Stream ${entry.definition.id} has no ingest node '${wanted}'.`,
        {
          nodeId: wanted,
        },
      );
    }
    return node;
  }
  const [only, ...others] = nodes;
  if (only === undefined) {
    throw new HeadsetdError(
      'node_not_found',
      `Stream ${entry.definition.id} has no ingest node to take frames; start one with POST /stream/start {"source":"ingest"} or add a node with executable "ingest".`,
    );
  }
  if (others.length > 0) {
    throw new HeadsetdError(
      'invalid_request',
      `Stream ${entry.definition.id} has several ingest nodes; name one with ?node= (${nodes.map((n) => n.id).join(', ')}).`,
      { path: '/querystring/node', allowed: nodes.map((n) => n.id) },
    );
  }
  return only;
}

function mustRun(entry: StreamEntry, what: string): void {
  if (entry.state !== 'running') {
    throw new HeadsetdError('invalid_state', `The stream is ${entry.state}; ${what} needs it running.`, {
      state: entry.state,
      signal: what,
      allowed: entry.state === 'paused' ? ['resume'] : ['start'],
    });
  }
}

export function pipeRoutes(app: FastifyInstance, options: PipeRoutesOptions): void {
  const { registry, manager, tags } = options;
  const allowed = new Set(options.allowedHosts.map(normalHost));

  app.post<WithStream & { Body: PipeBody }>(
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
    async (request) => {
      const { entry, session } = registry.resolve(request.params.streamId);
      const { target, metadata } = request.body;
      const host = normalHost(target.host);
      if (!allowed.has(host)) {
        throw new HeadsetdError(
          'forbidden_origin',
          `Piping to '${target.host}' is not allowed; this service pipes only to ${[...allowed].join(', ')} (its pipe allow-list).`,
          { path: '/target/host', host, allowed: [...allowed] },
        );
      }
      if (!isUuid(target.streamId)) {
        throw new HeadsetdError('validation_failed', `target.streamId '${target.streamId}' is not a UUID.`, {
          path: '/target/streamId',
        });
      }
      if (!isActive(entry.state)) mustRun(entry, 'pipe');
      const token = target.token ?? options.token;
      session.pipe?.close();
      session.pipe = new PipeSender({
        target: { host, port: target.port, streamId: target.streamId.toLowerCase() },
        ...(token === undefined ? {} : { token }),
        ...(metadata?.includeChannelMetadata === true
          ? {
              metadata: {
                sourceStreamId: entry.definition.id,
                sampleRate: session.config.sampleRate,
                channels: session.channels.map((name) => ({ name, type: 'EEG', unit: 'uV' })),
              },
            }
          : {}),
      });
      return { success: true, streamId: entry.definition.id, pipe: session.pipe.status() };
    },
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
    async (request) => {
      const { entry, session } = registry.resolve(request.params.streamId);
      const pipe = session.pipe;
      if (pipe === undefined) {
        throw new HeadsetdError(
          'pipe_not_found',
          `Stream ${entry.definition.id} has no pipe to another headsetd.`,
        );
      }
      pipe.close();
      session.pipe = undefined;
      return { success: true, streamId: entry.definition.id, pipe: pipe.status() };
    },
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
      const entry = manager.get(request.params.streamId);
      ingestNode(entry, request.query.node);
      mustRun(entry, 'ingest');
    },
    handler: async (request) => {
      throw new HeadsetdError(
        'invalid_request',
        `/stream/${request.params.streamId}/ingest is a WebSocket: connect with an upgrade request and send frames as JSON text.`,
        { path: '' },
      );
    },
    wsHandler: (socket, request) => {
      const entry = manager.get(request.params.streamId);
      const node = ingestNode(entry, request.query.node);
      const config = node.config ?? {};
      const expected: IngestExpectation = {
        ...(typeof config.sampleRate === 'number' ? { sampleRate: config.sampleRate } : {}),
        ...(Array.isArray(config.channels) ? { channels: config.channels as string[] } : {}),
      };
      serveIngest(socket, entry, node.id, expected, options, registry);
    },
  });
}

function serveIngest(
  socket: IngestSocket,
  entry: StreamEntry,
  nodeId: string,
  expected: IngestExpectation,
  options: PipeRoutesOptions,
  registry: QuickRegistry,
): void {
  const streamId = entry.definition.id;
  const session = registry.sessionOf(entry);
  if (session !== undefined) session.ingestClients++;
  let open = true;
  let received = 0;
  const end = (code: number, reason: string): void => {
    if (!open) return;
    open = false;
    socket.close(code, closeReason(reason));
  };
  socket.on('close', () => {
    open = false;
    if (session !== undefined) session.ingestClients--;
  });
  socket.on('message', (data, isBinary) => {
    if (!open) return;
    received++;
    if (isBinary) {
      end(
        CLOSE.unsupportedData,
        `message ${received}: binary messages are not accepted; send frames as JSON text`,
      );
      return;
    }
    const parsed = parseIngestMessage(data.toString('utf8'));
    if (!parsed.ok) {
      end(parsed.code, `message ${received}: ${parsed.reason}`);
      return;
    }
    const wrong = mismatch(parsed.frame, expected);
    if (wrong !== undefined) {
      end(CLOSE.policyViolation, `message ${received}: ${wrong}`);
      return;
    }
    if (!options.runtime.feed(streamId, nodeId, parsed.frame)) {
      end(CLOSE.policyViolation, `stream ${streamId} is not running; frames cannot be ingested`);
      return;
    }
    if (session !== undefined) session.ingestFrames++;
  });
}
