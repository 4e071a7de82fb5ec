/**
 * The maker's SDK stream paths (`/streams/stream`, `/streams/node`, `/streams/pipe`;
 * docs/instinct-sdk.md §Streams) on the stream manager that serves /stream/streams: the SDK's
 * bodies are translated (translate.ts) and the manager validates, stores and runs them as it does
 * the reference documents. One stream, whichever path made it.
 *
 * Signals answer within {@link SIGNAL_WAIT_MS}, inside the SDK's 1 s timeout: a transition that ends
 * by then is answered as it ended (a failure as an error); a slower one is answered as accepted,
 * and its outcome is the stream's state (GET /stream/streams/{id}/status) and, for a failure, the
 * `stream_failed` event of GET /system/events. A node or pipe added to a running stream is
 * answered the same way once stored (an external program may take seconds to start): a node that
 * then fails to start stays in the stream in `error`, the stream degraded (`stream_degraded`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { STREAM_SIGNALS, type StreamSignal } from '../../core/stream-model.js';
import { HeadsetdError } from '../../errors/catalog.js';
import { errorResponses } from '../../schemas/responses.js';
import type { StartingEdit, StreamManager } from '../../streams/manager.js';
import { outcomeWithin, signalWithin } from '../../streams/signal-within.js';
import { logFailure } from '../error-handler.js';
import { handlerValidated } from '../validation.js';
import {
  NodeAnswer,
  NodeBody,
  NodeSignalBody,
  PipeAnswer,
  PipeBody,
  SdkStream,
  StreamAnswer,
  StreamBody,
  StreamIdBody,
  StreamSignalBody,
  tags,
} from './schemas.js';
import { nodeIn, nodeOut, pipeOut, streamIn, streamOut } from './translate.js';

/** How long a signal waits for its transition before answering it as accepted, ms. */
export const SIGNAL_WAIT_MS = 300;

const JSON_ONLY = { accepts: ['json'] as const };

type Json = Record<string, unknown>;

function fieldsOf(body: unknown): Json {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new HeadsetdError('invalid_request', 'The body must be a JSON object.', { path: '' });
  }
  return body as Json;
}

function text(fields: Json, name: string, base = ''): string {
  const value = fields[name];
  if (typeof value !== 'string' || value === '') {
    throw new HeadsetdError('invalid_request', `The field '${name}' is required and must be a string.`, {
      path: `${base}/${name}`,
    });
  }
  return value;
}

function objectField(fields: Json, name: string): Json {
  const value = fields[name];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HeadsetdError('invalid_request', `The field '${name}' is required and must be an object.`, {
      path: `/${name}`,
    });
  }
  return value as Json;
}

/** `{signal, parameters}` of a signal body. */
function signalOf(fields: Json): { name: string; parameters: Json } {
  const signal = objectField(fields, 'signal');
  const name = text(signal, 'signal', '/signal');
  const parameters: unknown = signal.parameters ?? {};
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
    throw new HeadsetdError('invalid_request', "'signal.parameters' must be an object or null.", {
      path: '/signal/parameters',
    });
  }
  return { name, parameters: parameters as Json };
}

/** Where a transition that fails after its answer is announced (the service's event hub). */
export type LateFailureSink = (streamId: string, message: string) => void;

export function instinctStreamRoutes(
  app: FastifyInstance,
  manager: StreamManager,
  lateFailure: LateFailureSink = () => undefined,
): void {
  const view = (id: string) => {
    const entry = manager.get(id);
    return streamOut(entry.definition, entry.state);
  };

  /** Sends a lifecycle signal and answers within SIGNAL_WAIT_MS (see the module's comment). */
  const signal = async (request: FastifyRequest, id: string, name: StreamSignal) => {
    const progress = await signalWithin(manager, id, name, SIGNAL_WAIT_MS, (failure) => {
      logFailure(request.log, failure, `stream ${id}: ${name} failed`, 'warn');
      lateFailure(id, `Stream ${id} failed to ${name} after its answer: ${failure.message}`);
    });
    if (progress === 'done')
      return { message: `Stream ${id}: ${name} done.`, success: true, stream: view(id) };
    // Answered already: a later failure is the stream's state and error, and an event of the hub.
    return {
      message: `Stream ${id}: ${name} accepted and under way; GET /stream/streams/${id}/status shows its state.`,
      success: true,
      stream: view(id),
    };
  };

  /**
   * Answers an edit of a running stream within SIGNAL_WAIT_MS, as a signal: a node that fails to
   * start later stays in the stream in `error`, and the manager announces `stream_degraded`.
   */
  const editWithin = (request: FastifyRequest, id: string, edit: StartingEdit) =>
    outcomeWithin(edit.started, SIGNAL_WAIT_MS, (failure) => {
      logFailure(request.log, failure, `stream ${id}: an edit answered before it applied failed`, 'warn');
    });

  const signalAnswers = { 200: StreamAnswer, ...errorResponses(400, 404, 409, 415, 422, 503) };

  app.post(
    '/streams/stream',
    {
      config: JSON_ONLY,
      schema: {
        tags,
        summary:
          'SDK: create a stream (meta may be null, meta.version text); the same stream as /stream/streams',
        body: handlerValidated(StreamBody),
        response: { 200: StreamAnswer, ...errorResponses(400, 403, 409, 413, 415, 422, 503, 507) },
      },
    },
    async (request) => {
      const definition = manager.create(streamIn(request.body));
      return { message: `Stream ${definition.id} created.`, success: true, stream: view(definition.id) };
    },
  );

  app.get(
    '/streams/stream',
    {
      schema: {
        tags,
        summary: 'SDK: list the streams (every stream, whichever path made it)',
        response: { 200: Type.Array(SdkStream), ...errorResponses(400) },
      },
    },
    async () => manager.list().map((entry) => streamOut(entry.definition, entry.state)),
  );

  app.get<{ Params: { id: string } }>(
    '/streams/stream/:id',
    {
      schema: {
        tags,
        summary: 'SDK: read a stream',
        params: Type.Object({ id: Type.String() }),
        response: { 200: SdkStream, ...errorResponses(404) },
      },
    },
    async (request) => view(request.params.id),
  );

  app.delete<{ Params: { id: string } }>(
    '/streams/stream/:id',
    {
      schema: {
        tags,
        summary: 'SDK: delete a stream (stopped first if it runs)',
        params: Type.Object({ id: Type.String() }),
        response: { 200: StreamAnswer, ...errorResponses(404, 503, 507) },
      },
    },
    async (request) => {
      const stream = view(request.params.id);
      await manager.remove(request.params.id);
      return { message: `Stream ${stream.id as string} deleted.`, success: true, stream };
    },
  );

  for (const name of ['start', 'stop', 'reconcile'] as const) {
    app.post(
      `/streams/stream/${name}`,
      {
        config: JSON_ONLY,
        schema: {
          tags,
          summary: `SDK: ${name} a stream ({streamId}); answered within ${SIGNAL_WAIT_MS} ms, the outcome then in its status`,
          body: handlerValidated(StreamIdBody),
          response: signalAnswers,
        },
      },
      async (request) => signal(request, text(fieldsOf(request.body), 'streamId'), name),
    );
  }

  app.post(
    '/streams/stream/signal',
    {
      config: JSON_ONLY,
      schema: {
        tags,
        summary: 'SDK: send a lifecycle signal ({streamId, signal: {signal, parameters}})',
        body: handlerValidated(StreamSignalBody),
        response: signalAnswers,
      },
    },
    async (request) => {
      const fields = fieldsOf(request.body);
      const id = text(fields, 'streamId');
      const { name, parameters } = signalOf(fields);
      if (!STREAM_SIGNALS.includes(name as StreamSignal)) {
        throw new HeadsetdError(
          'invalid_request',
          `'${name}' is not a stream signal; use one of ${STREAM_SIGNALS.join(', ')} (a node takes other signals: POST /streams/node/signal).`,
          { path: '/signal/signal', allowed: [...STREAM_SIGNALS] },
        );
      }
      if (Object.keys(parameters).length > 0) {
        throw new HeadsetdError(
          'validation_failed',
          `The stream signal '${name}' takes no parameters; parameters go with node signals (POST /streams/node/signal).`,
          { path: '/signal/parameters' },
        );
      }
      return signal(request, id, name as StreamSignal);
    },
  );

  app.post(
    '/streams/node',
    {
      config: JSON_ONLY,
      schema: {
        tags,
        summary: `SDK: add one node ({streamId, node}); live if the stream runs, answered within ${SIGNAL_WAIT_MS} ms once stored, its start then in the stream's status`,
        body: handlerValidated(NodeBody),
        response: { 200: NodeAnswer, ...errorResponses(400, 403, 404, 409, 413, 415, 422, 503, 507) },
      },
    },
    async (request) => {
      const fields = fieldsOf(request.body);
      const id = text(fields, 'streamId');
      const edit = await manager.addNodesStarting(id, [nodeIn(objectField(fields, 'node'))]);
      const added = edit.added[0] ?? '';
      const progress = await editWithin(request, id, edit);
      const node = manager.get(id).definition.nodes.find((n) => n.id === added);
      return {
        message:
          progress === 'done'
            ? `Node ${added} added to stream ${id}.`
            : `Node ${added} added to stream ${id}; it is starting: GET /stream/streams/${id}/status shows its state.`,
        success: true,
        ...(node === undefined ? {} : { node: nodeOut(node) }),
      };
    },
  );

  app.post(
    '/streams/node/signal',
    {
      config: JSON_ONLY,
      schema: {
        tags,
        summary: 'SDK: signal one node ({streamId, nodeId, signal: {signal, parameters}})',
        body: handlerValidated(NodeSignalBody),
        response: { 200: NodeAnswer, ...errorResponses(400, 404, 409, 415) },
      },
    },
    async (request) => {
      const fields = fieldsOf(request.body);
      const id = text(fields, 'streamId');
      const nodeId = text(fields, 'nodeId');
      const { name, parameters } = signalOf(fields);
      await manager.signalNode(id, nodeId, name, parameters);
      const node = manager.get(id).definition.nodes.find((n) => n.id === nodeId);
      return {
        message: `Signal '${name}' delivered to node ${nodeId}.`,
        success: true,
        ...(node === undefined ? {} : { node: nodeOut(node) }),
      };
    },
  );

  app.delete<{ Params: { streamId: string; nodeId: string } }>(
    '/streams/node/:streamId/:nodeId',
    {
      schema: {
        tags,
        summary: 'SDK: remove one node (and every pipe touching it)',
        params: Type.Object({ streamId: Type.String(), nodeId: Type.String() }),
        response: { 200: NodeAnswer, ...errorResponses(404, 503, 507) },
      },
    },
    async (request) => {
      const { streamId, nodeId } = request.params;
      const node = manager.get(streamId).definition.nodes.find((n) => n.id === nodeId);
      const { pipes } = await manager.removeNodes(streamId, [nodeId]);
      return {
        message: `Node ${nodeId} removed${pipes.length > 0 ? ` with pipes ${pipes.join(', ')}` : ''}.`,
        success: true,
        ...(node === undefined ? {} : { node: nodeOut(node) }),
      };
    },
  );

  app.post(
    '/streams/pipe',
    {
      config: JSON_ONLY,
      schema: {
        tags,
        summary: `SDK: add one pipe ({streamId, pipe}); live if the stream runs, answered within ${SIGNAL_WAIT_MS} ms once stored`,
        body: handlerValidated(PipeBody),
        response: { 200: PipeAnswer, ...errorResponses(400, 404, 409, 413, 415, 422, 503, 507) },
      },
    },
    async (request) => {
      const fields = fieldsOf(request.body);
      const id = text(fields, 'streamId');
      const edit = await manager.addPipesStarting(id, [objectField(fields, 'pipe')]);
      const added = edit.added[0] ?? '';
      const progress = await editWithin(request, id, edit);
      const pipe = manager.get(id).definition.pipes.find((p) => p.id === added);
      return {
        message:
          progress === 'done'
            ? `Pipe ${added} added to stream ${id}.`
            : `Pipe ${added} added to stream ${id}; it is applied after the stream's edits under way.`,
        success: true,
        ...(pipe === undefined ? {} : { pipe: pipeOut(pipe) }),
      };
    },
  );

  app.delete<{ Params: { streamId: string; pipeId: string } }>(
    '/streams/pipe/:streamId/:pipeId',
    {
      schema: {
        tags,
        summary: 'SDK: remove one pipe',
        params: Type.Object({ streamId: Type.String(), pipeId: Type.String() }),
        response: { 200: PipeAnswer, ...errorResponses(404, 503, 507) },
      },
    },
    async (request) => {
      const { streamId, pipeId } = request.params;
      const pipe = manager.get(streamId).definition.pipes.find((p) => p.id === pipeId);
      await manager.removePipes(streamId, [pipeId]);
      return {
        message: `Pipe ${pipeId} removed from stream ${streamId}.`,
        success: true,
        ...(pipe === undefined ? {} : { pipe: pipeOut(pipe) }),
      };
    },
  );
}
