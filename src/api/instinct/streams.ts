/**
 * The maker's SDK stream paths (`/streams/stream`, `/streams/node`, `/streams/pipe`;
 * docs/instinct-sdk.md §Streams) on the stream manager that serves /stream/streams: the SDK's
 * bodies are translated (translate.ts) and the manager validates, stores and runs them as it does
 * the reference documents. One stream, whichever path made it.
 *
 * Signals are answered as on the reference paths (api/stream-signal.ts: one wait, a late failure
 * announced as `stream_failed`), the message saying whether the transition is done or under way.
 * A node or pipe added to a running stream is answered the same way once stored (an external
 * program may take seconds to start): a node that then fails to start stays in the stream in
 * `error`, the stream degraded (`stream_degraded`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { StreamSignal } from '../../core/stream-model.js';
import { HeadsetdError } from '../../core/errors.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import type { StartingEdit, StreamManager } from '../../streams/manager.js';
import { outcomeWithin } from '../../streams/signal-within.js';
import { sendSignal, type SignalPolicy, streamSignalNamed } from '../stream-signal.js';
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

const JSON_ONLY = { accepts: ['json'] as const };

type Json = Record<string, unknown>;
type SignalShape = { signal: string; parameters?: Json | null };

export function instinctStreamRoutes(
  app: FastifyInstance,
  manager: StreamManager,
  policy: SignalPolicy,
): void {
  const view = (id: string) => {
    const entry = manager.get(id);
    return streamOut(entry.definition, entry.state);
  };

  /** Sends a lifecycle signal and answers as api/stream-signal.ts says. */
  const signal = async (request: FastifyRequest, id: string, name: StreamSignal) => {
    const progress = await sendSignal(manager, policy, request, id, name);
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
   * Answers an edit of a running stream within the signals' wait, as a signal: a node that fails to
   * start later stays in the stream in `error`, and the manager announces `stream_degraded`.
   */
  const editWithin = (request: FastifyRequest, id: string, edit: StartingEdit) =>
    outcomeWithin(edit.started, policy.waitMs, (failure) => {
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
    app.post<{ Body: { streamId: string } }>(
      `/streams/stream/${name}`,
      {
        config: JSON_ONLY,
        schema: {
          tags,
          summary: `SDK: ${name} a stream ({streamId}); answered within ${policy.waitMs} ms, the outcome then in its status`,
          body: StreamIdBody,
          response: signalAnswers,
        },
      },
      async (request) => signal(request, request.body.streamId, name),
    );
  }

  app.post<{ Body: { streamId: string; signal: SignalShape } }>(
    '/streams/stream/signal',
    {
      config: JSON_ONLY,
      schema: {
        tags,
        summary: 'SDK: send a lifecycle signal ({streamId, signal: {signal, parameters}})',
        body: StreamSignalBody,
        response: signalAnswers,
      },
    },
    async (request) => {
      const { streamId, signal: sent } = request.body;
      const name = streamSignalNamed(
        sent.signal,
        '/signal/signal',
        ' (a node takes other signals: POST /streams/node/signal)',
      );
      if (Object.keys(sent.parameters ?? {}).length > 0) {
        throw new HeadsetdError(
          'validation_failed',
          `The stream signal '${name}' takes no parameters; parameters go with node signals (POST /streams/node/signal).`,
          { path: '/signal/parameters' },
        );
      }
      return signal(request, streamId, name);
    },
  );

  app.post<{ Body: { streamId: string; node: Json } }>(
    '/streams/node',
    {
      config: JSON_ONLY,
      schema: {
        tags,
        summary: `SDK: add one node ({streamId, node}); live if the stream runs, answered within ${policy.waitMs} ms once stored, its start then in the stream's status`,
        body: NodeBody,
        response: { 200: NodeAnswer, ...errorResponses(400, 403, 404, 409, 413, 415, 422, 503, 507) },
      },
    },
    async (request) => {
      const { streamId: id, node: sent } = request.body;
      const edit = await manager.addNodesStarting(id, [nodeIn(sent)]);
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

  app.post<{ Body: { streamId: string; nodeId: string; signal: SignalShape } }>(
    '/streams/node/signal',
    {
      config: JSON_ONLY,
      schema: {
        tags,
        summary: 'SDK: signal one node ({streamId, nodeId, signal: {signal, parameters}})',
        body: NodeSignalBody,
        response: { 200: NodeAnswer, ...errorResponses(400, 404, 409, 415) },
      },
    },
    async (request) => {
      const { streamId: id, nodeId, signal: sent } = request.body;
      const name = sent.signal;
      await manager.signalNode(id, nodeId, name, sent.parameters ?? {});
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

  app.post<{ Body: { streamId: string; pipe: Json } }>(
    '/streams/pipe',
    {
      config: JSON_ONLY,
      schema: {
        tags,
        summary: `SDK: add one pipe ({streamId, pipe}); live if the stream runs, answered within ${policy.waitMs} ms once stored`,
        body: PipeBody,
        response: { 200: PipeAnswer, ...errorResponses(400, 404, 409, 413, 415, 422, 503, 507) },
      },
    },
    async (request) => {
      const { streamId: id, pipe: sent } = request.body;
      const edit = await manager.addPipesStarting(id, [sent]);
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
