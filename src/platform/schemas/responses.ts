/**
 * Response shapes for the OpenAPI document. Responses are serialised with JSON.stringify (not
 * compiled from these schemas), so open objects such as `meta` and `config` are never trimmed.
 */
import { type TSchema, Type } from 'typebox';
import { NodeSchema, PipeSchema, StreamMetaSchema } from './stream.js';
import { NODE_STATES, STREAM_STATES, STREAM_SIGNALS } from '../../core/stream-model.js';

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.String({ description: 'Stable machine-readable code (see the error catalog).' }),
      message: Type.String({ description: 'One sentence a person can act on.' }),
      details: Type.Optional(
        Type.Object(
          { path: Type.Optional(Type.String({ description: 'JSON pointer to the offending field.' })) },
          { additionalProperties: true },
        ),
      ),
    }),
  },
  { $id: 'ErrorEnvelope' },
);

export const Success = Type.Object({ success: Type.Literal(true) });
export const IdSuccess = Type.Object({ id: Type.String(), success: Type.Literal(true) });

const Metrics = Type.Object(
  {
    itemsProcessed: Type.Number(),
    samplesProcessed: Type.Number(),
    errorCount: Type.Number(),
    framesDropped: Type.Number(),
    queueDepth: Type.Number(),
    restarts: Type.Number(),
    lastError: Type.Union([Type.String(), Type.Null()]),
    latency: Type.Optional(
      Type.Record(Type.String(), Type.Object({ p50: Type.Number(), p99: Type.Number() }), {
        description: 'Per input pipe: ms from creation at the source to handling here, over the last 10 s.',
      }),
    ),
  },
  { additionalProperties: true },
);

export const StreamStatusResponse = Type.Object({
  success: Type.Literal(true),
  status: Type.Object({
    state: Type.Enum(STREAM_STATES),
    degraded: Type.Boolean({
      description:
        'True while the stream runs (or is paused) with a node in `error`: frames through it are lost.',
    }),
    error: Type.Union([Type.String(), Type.Null()], {
      description: 'Why the stream is in `error`, or which node makes it degraded; null otherwise.',
    }),
    nodes: Type.Array(
      Type.Object(
        { id: Type.String(), state: Type.Enum(NODE_STATES), metrics: Metrics },
        {
          additionalProperties: true,
          description: "Node-specific fields such as a websocket node's `port` are added.",
        },
      ),
    ),
    pipes: Type.Record(
      Type.String(),
      Type.Object({ framesSent: Type.Number(), framesDropped: Type.Number(), queueDepth: Type.Number() }),
    ),
  }),
});

export const StreamReadResponse = Type.Object({
  success: Type.Literal(true),
  stream: Type.Object({
    id: Type.String(),
    meta: StreamMetaSchema,
    nodes: Type.Array(NodeSchema),
    pipes: Type.Array(PipeSchema),
    status: Type.String({ description: 'Upper case: CREATED, RUNNING, ...' }),
  }),
});

export const StreamListResponse = Type.Object({
  success: Type.Literal(true),
  streams: Type.Array(
    Type.Object({
      id: Type.String(),
      meta: StreamMetaSchema,
      state: Type.Enum(STREAM_STATES, { description: 'The run state, as in GET status.' }),
    }),
  ),
});

// The signal is a string here, its name checked by the route: an unknown name is a 400 with the
// allowed names (docs/api.md §Lifecycle), where the schema's enum would answer 422.
export const SignalBody = Type.Object(
  { signal: Type.String({ description: `One of ${STREAM_SIGNALS.join(', ')}.` }) },
  { description: 'Form field `signal=` or JSON {signal}.' },
);

export const NodeSignalBody = Type.Object(
  {
    signal: Type.String({
      description: 'start, stop, pause, resume, restart, or a custom name (e.g. marker).',
    }),
  },
  {
    additionalProperties: true,
    description: 'Other fields (e.g. `text` for a marker) are passed to the node.',
  },
);

export const NodesChanged = Type.Object({
  id: Type.String(),
  success: Type.Literal(true),
  nodes: Type.Array(Type.String()),
  pipes: Type.Optional(Type.Array(Type.String())),
});

export const PipesChanged = Type.Object({
  id: Type.String(),
  pipes: Type.Array(Type.String()),
  success: Type.Literal(true),
});

export const NodeSignalResponse = Type.Object({
  id: Type.String(),
  streamId: Type.String(),
  signal: Type.String(),
  success: Type.Literal(true),
});

export const LogsResponse = Type.Object({
  success: Type.Literal(true),
  logs: Type.Array(
    Type.Object({ timestamp: Type.Number(), stream: Type.Enum(['stderr', 'event']), line: Type.String() }),
  ),
});

/** A 2xx answer that is not JSON (a YAML export, an image, a file), for the OpenAPI document. */
export function textOrFileResponse(description: string, mediaTypes: readonly string[]): TSchema {
  return {
    description,
    content: Object.fromEntries(
      mediaTypes.map((type) => [
        type,
        { schema: { type: 'string', ...(type.startsWith('text/') ? {} : { format: 'binary' }) } },
      ]),
    ),
  };
}

/** The error responses a route can give, each as the envelope. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, Type.Ref('ErrorEnvelope')]));
}
