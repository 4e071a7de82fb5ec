/**
 * The Streams API (docs/api.md §Paths and shapes). Registered under `/stream` and again at the
 * root for the guide aliases (`/streams/...`): the same handlers serve both.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  errorResponses,
  textOrFileResponse,
  IdSuccess,
  LogsResponse,
  NodeSignalBody,
  NodeSignalResponse,
  NodesChanged,
  PipesChanged,
  SignalBody,
  StreamListResponse,
  StreamReadResponse,
  StreamStatusResponse,
  Success,
} from '../platform/schemas/responses.js';
import {
  IdListSchema,
  NodeListSchema,
  PipeListSchema,
  StreamCreateSchema,
  StreamReplaceSchema,
} from '../platform/schemas/stream.js';
import type { StreamManager } from '../streams/manager.js';
import { readView } from '../streams/views.js';
import { StatusAnswers } from './status-answers.js';
import { toYaml } from '../core/yaml.js';
import { handlerValidated } from './validation.js';
import { ETAG_HEADER, IfMatchHeaders, preconditionOf, withRevision } from './if-match.js';
import { type LateFailureSink, sendSignal, signalPolicy, streamSignalNamed } from './stream-signal.js';

export interface StreamsPluginOptions {
  manager: StreamManager;
  /** Tag in the OpenAPI document: reference paths and guide aliases are listed apart. */
  tag: string;
  /** How long a stream signal waits for its transition (default SIGNAL_WAIT_MS, stream-signal.ts). */
  signalWaitMs?: number | undefined;
  /** Where a transition that fails after its answer is announced (stream-signal.ts). */
  onLateFailure?: LateFailureSink | undefined;
}

type WithId = { Params: { id: string } };
type WithNode = { Params: { id: string; nodeId: string } };

const StreamParams = Type.Object({ id: Type.String({ description: 'The stream UUID.' }) });
const NodeParams = Type.Object({ id: Type.String(), nodeId: Type.String() });

const JSON_OR_YAML = ['json', 'yaml'] as const;
const YAML_FIRST = ['yaml', 'text', 'json'] as const;
const FORM_OR_JSON = ['form', 'json', 'yaml'] as const;

/** A 200 answer schema that also carries the stream's revision as its ETag. */
function tagged<T extends object>(schema: T): T & { headers: typeof ETAG_HEADER } {
  return { ...schema, headers: ETAG_HEADER };
}

function wantsYaml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /(text|application)\/(x-)?yaml/.test(accept);
}

function sendYaml(reply: FastifyReply, value: unknown): FastifyReply {
  return reply.type('text/yaml; charset=utf-8').send(toYaml(value));
}

export function streamsPlugin(app: FastifyInstance, options: StreamsPluginOptions): void {
  const { manager, tag } = options;
  const policy = signalPolicy(options);
  const statusAnswers = new StatusAnswers();
  const tags = [tag];
  const createBody = handlerValidated(StreamCreateSchema);

  app.post(
    '/streams',
    {
      config: { accepts: JSON_OR_YAML },
      schema: {
        tags,
        summary: 'Create a stream (JSON or YAML)',
        body: createBody,
        response: { 200: IdSuccess, ...errorResponses(400, 403, 409, 413, 415, 422, 503, 507) },
      },
    },
    async (request) => ({ id: manager.create(request.body).id, success: true }),
  );

  app.post(
    '/streams/yaml',
    {
      config: { accepts: YAML_FIRST },
      schema: {
        tags,
        summary: 'Create a stream from YAML (Content-Type text/yaml)',
        consumes: ['text/yaml', 'application/yaml', 'application/x-yaml'],
        body: createBody,
        response: { 200: IdSuccess, ...errorResponses(400, 403, 409, 413, 415, 422, 503, 507) },
      },
    },
    async (request) => ({ id: manager.create(request.body).id, success: true }),
  );

  // A dry run of the create, for editors that check a document as it is typed (the dashboard's).
  app.post(
    '/streams/validate',
    {
      config: { accepts: YAML_FIRST },
      schema: {
        tags,
        summary: 'Check a stream document (JSON or YAML) as a create would, without creating it',
        consumes: ['text/yaml', 'application/yaml', 'application/x-yaml', 'application/json'],
        body: createBody,
        response: { 200: IdSuccess, ...errorResponses(400, 403, 409, 413, 415, 422) },
      },
    },
    async (request) => ({ id: manager.check(request.body).id, success: true }),
  );

  app.get(
    '/streams',
    { schema: { tags, summary: 'List streams', response: { 200: StreamListResponse } } },
    async () => ({
      success: true,
      streams: manager.list().map((e) => ({ id: e.definition.id, meta: e.definition.meta, state: e.state })),
    }),
  );

  app.get<WithId>(
    '/streams/:id',
    {
      schema: {
        tags,
        summary: 'Read a stream (YAML with Accept: text/yaml); its ETag is its revision',
        params: StreamParams,
        response: { 200: tagged(StreamReadResponse), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const entry = manager.get(request.params.id);
      withRevision(reply, entry.revision);
      if (wantsYaml(request)) return sendYaml(reply, entry.definition);
      return { success: true, stream: readView(entry, manager.runtimeStatus(entry), manager.isLive(entry)) };
    },
  );

  app.get<WithId>(
    '/streams/:id/yaml',
    {
      schema: {
        tags,
        summary: 'Export a stream definition as YAML',
        params: StreamParams,
        produces: ['text/yaml'],
        response: {
          200: tagged(textOrFileResponse('The definition as YAML 1.2.', ['text/yaml'])),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const entry = manager.get(request.params.id);
      withRevision(reply, entry.revision);
      return sendYaml(reply, entry.definition);
    },
  );

  app.put<WithId>(
    '/streams/:id',
    {
      config: { accepts: JSON_OR_YAML },
      schema: {
        tags,
        summary: 'Replace a stream definition (applied live as a diff when it runs)',
        params: StreamParams,
        headers: IfMatchHeaders,
        body: handlerValidated(StreamReplaceSchema),
        response: {
          200: tagged(IdSuccess),
          ...errorResponses(400, 403, 404, 412, 413, 415, 422, 503, 507),
        },
      },
    },
    async (request, reply) => {
      const precondition = preconditionOf(request);
      const { definition, revision } = await manager.replace(request.params.id, request.body, precondition);
      withRevision(reply, revision);
      return { id: definition.id, success: true };
    },
  );

  app.delete<WithId>(
    '/streams/:id',
    {
      schema: {
        tags,
        summary: 'Delete a stream (stopped first if it runs)',
        params: StreamParams,
        headers: IfMatchHeaders,
        response: { 200: Success, ...errorResponses(400, 404, 412, 503, 507) },
      },
    },
    async (request) => {
      await manager.remove(request.params.id, preconditionOf(request));
      return { success: true };
    },
  );

  app.post<WithId & { Body: { signal: string } }>(
    '/streams/:id/signal',
    {
      config: { accepts: FORM_OR_JSON },
      schema: {
        tags,
        summary: 'Send a lifecycle signal: start, stop, pause, resume, reconcile',
        params: StreamParams,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: SignalBody,
        response: { 200: IdSuccess, ...errorResponses(400, 404, 409, 415, 422, 503, 507) },
      },
    },
    async (request) => {
      const entry = manager.get(request.params.id);
      const signal = streamSignalNamed(request.body.signal, '/signal');
      // Answered when the transition ended (so that a read that follows shows the state reached,
      // RUNNING after start, as the reference's workflow reads; a failure as failed) or, for a
      // slower one, on time as accepted, its transitional state visible (stream-signal.ts).
      await sendSignal(manager, policy, request, entry.definition.id, signal);
      return { id: entry.definition.id, success: true };
    },
  );

  app.get<WithId>(
    '/streams/:id/status',
    {
      schema: {
        tags,
        summary: 'Run state and per-node metrics',
        params: StreamParams,
        response: { 200: tagged(StreamStatusResponse), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const entry = manager.get(request.params.id);
      withRevision(reply, entry.revision);
      // Already JSON: Fastify sends a string as it is.
      return reply
        .type('application/json; charset=utf-8')
        .send(statusAnswers.text(entry, manager.runtimeStatus(entry), manager.isLive(entry)));
    },
  );

  const addNodes = async (request: FastifyRequest<WithId>, reply: FastifyReply) => {
    const entry = manager.get(request.params.id);
    const precondition = preconditionOf(request);
    const { added, revision } = await manager.addNodes(entry.definition.id, request.body, precondition);
    withRevision(reply, revision);
    return { id: entry.definition.id, success: true, nodes: added };
  };
  const nodesSchema = (summary: string) => ({
    tags,
    summary,
    params: StreamParams,
    headers: IfMatchHeaders,
    body: handlerValidated(NodeListSchema),
    response: {
      200: tagged(NodesChanged),
      ...errorResponses(400, 403, 404, 409, 412, 413, 415, 422, 503, 507),
    },
  });
  app.post<WithId>(
    '/streams/:id/nodes',
    { config: { accepts: JSON_OR_YAML }, schema: nodesSchema('Add nodes (live if the stream runs)') },
    addNodes,
  );
  app.post<WithId>(
    '/streams/:id/nodes/yaml',
    { config: { accepts: YAML_FIRST }, schema: nodesSchema('Add nodes from a YAML list') },
    addNodes,
  );

  app.delete<WithId>(
    '/streams/:id/nodes',
    {
      config: { accepts: JSON_OR_YAML },
      schema: {
        tags,
        summary: 'Remove nodes (and every pipe touching them)',
        params: StreamParams,
        headers: IfMatchHeaders,
        body: handlerValidated(IdListSchema),
        response: { 200: tagged(NodesChanged), ...errorResponses(400, 404, 412, 415, 422, 503, 507) },
      },
    },
    async (request, reply) => {
      const entry = manager.get(request.params.id);
      const precondition = preconditionOf(request);
      const { nodes, pipes, revision } = await manager.removeNodes(
        entry.definition.id,
        request.body,
        precondition,
      );
      withRevision(reply, revision);
      return { id: entry.definition.id, success: true, nodes, pipes };
    },
  );

  app.post<WithNode & { Body: { signal: string } & Record<string, unknown> }>(
    '/streams/:id/nodes/:nodeId/signal',
    {
      config: { accepts: FORM_OR_JSON },
      schema: {
        tags,
        summary: 'Signal one node: start, stop, pause, resume, restart, or a custom signal such as marker',
        params: NodeParams,
        body: NodeSignalBody,
        response: { 200: NodeSignalResponse, ...errorResponses(400, 404, 409, 415) },
      },
    },
    async (request) => {
      const entry = manager.get(request.params.id);
      const { signal, ...payload } = request.body;
      await manager.signalNode(entry.definition.id, request.params.nodeId, signal, payload);
      return { id: request.params.nodeId, streamId: entry.definition.id, signal, success: true };
    },
  );

  app.get<WithNode>(
    '/streams/:id/nodes/:nodeId/logs',
    {
      schema: {
        tags,
        summary: "A node's last 500 log lines",
        params: NodeParams,
        response: { 200: LogsResponse, ...errorResponses(404) },
      },
    },
    async (request) => ({ success: true, logs: manager.logs(request.params.id, request.params.nodeId) }),
  );

  const addPipes = async (request: FastifyRequest<WithId>, reply: FastifyReply) => {
    const entry = manager.get(request.params.id);
    const precondition = preconditionOf(request);
    const { added, revision } = await manager.addPipes(entry.definition.id, request.body, precondition);
    withRevision(reply, revision);
    return { id: entry.definition.id, pipes: added, success: true };
  };
  const pipesSchema = (summary: string) => ({
    tags,
    summary,
    params: StreamParams,
    headers: IfMatchHeaders,
    body: handlerValidated(PipeListSchema),
    response: {
      200: tagged(PipesChanged),
      ...errorResponses(400, 404, 409, 412, 413, 415, 422, 503, 507),
    },
  });
  app.post<WithId>(
    '/streams/:id/pipes',
    { config: { accepts: JSON_OR_YAML }, schema: pipesSchema('Add pipes (live if the stream runs)') },
    addPipes,
  );
  app.post<WithId>(
    '/streams/:id/pipes/yaml',
    { config: { accepts: YAML_FIRST }, schema: pipesSchema('Add pipes from a YAML list') },
    addPipes,
  );

  app.delete<WithId>(
    '/streams/:id/pipes',
    {
      config: { accepts: JSON_OR_YAML },
      schema: {
        tags,
        summary: 'Remove pipes',
        params: StreamParams,
        headers: IfMatchHeaders,
        body: handlerValidated(IdListSchema),
        response: { 200: tagged(PipesChanged), ...errorResponses(400, 404, 412, 415, 422, 503, 507) },
      },
    },
    async (request, reply) => {
      const entry = manager.get(request.params.id);
      const precondition = preconditionOf(request);
      const { removed, revision } = await manager.removePipes(
        entry.definition.id,
        request.body,
        precondition,
      );
      withRevision(reply, revision);
      return { id: entry.definition.id, pipes: removed, success: true };
    },
  );
}
