/**
 * The stream document (docs/api.md §Documents, §Validation) as TypeBox
 * schemas: the one source of truth for validation (API and `headsetd validate`), types and OpenAPI.
 */
import { type Static, Type } from 'typebox';
import { NODE_META_TYPES, NODE_TYPES, PIPE_POLICIES, STREAM_LIMITS } from '../../core/stream-model.js';
import { UUID_PATTERN } from '../../core/uuid.js';

export { UUID_PATTERN };

const ItemId = Type.String({ minLength: 1, maxLength: STREAM_LIMITS.maxIdLength });

/** Upper-case run state answered on a stream read; accepted on input and ignored, so a read can be sent back. */
const ReadOnlyStatus = Type.Optional(
  Type.String({ description: 'Read-only; answered on reads, ignored when sent back.' }),
);

export const StreamMetaSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 256 })),
    description: Type.Optional(Type.String({ maxLength: 4096 })),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 64 })),
    version: Type.Optional(Type.Number()),
    created: Type.Optional(Type.String({ description: 'Set by the server (ISO 8601).' })),
    updated: Type.Optional(Type.String({ description: 'Set by the server (ISO 8601).' })),
  },
  { additionalProperties: true, description: 'Open: keys other than these are kept as given.' },
);

export const NodeSchema = Type.Object(
  {
    id: ItemId,
    type: Type.Optional(Type.Enum(NODE_TYPES)),
    meta: Type.Optional(
      Type.Object({ type: Type.Optional(Type.Enum(NODE_META_TYPES)) }, { additionalProperties: true }),
    ),
    executable: Type.String({ minLength: 1, maxLength: 4096 }),
    config: Type.Optional(Type.Object({}, { additionalProperties: true })),
    status: ReadOnlyStatus,
  },
  { additionalProperties: false },
);

export const PipeSchema = Type.Object(
  {
    id: ItemId,
    source: ItemId,
    destination: Type.Optional(ItemId),
    target: Type.Optional(ItemId),
    sourcePort: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    targetPort: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    policy: Type.Optional(Type.Enum(PIPE_POLICIES)),
    capacity: Type.Optional(Type.Integer({ minimum: 1, maximum: STREAM_LIMITS.maxPipeCapacity })),
  },
  { additionalProperties: false },
);

const definitionFields = {
  meta: Type.Optional(StreamMetaSchema),
  nodes: Type.Optional(Type.Array(NodeSchema, { maxItems: STREAM_LIMITS.maxNodes })),
  pipes: Type.Optional(Type.Array(PipeSchema, { maxItems: STREAM_LIMITS.maxPipes })),
  status: ReadOnlyStatus,
};

/** POST /stream/streams and /stream/streams/yaml. */
export const StreamCreateSchema = Type.Object(
  {
    id: Type.String({ pattern: UUID_PATTERN, description: 'A UUID chosen by the client.' }),
    ...definitionFields,
  },
  { additionalProperties: false },
);

/** PUT /stream/streams/{id}: the id, when present, must equal the path's. */
export const StreamReplaceSchema = Type.Object(
  { id: Type.Optional(Type.String()), ...definitionFields },
  { additionalProperties: false },
);

export const NodeListSchema = Type.Array(NodeSchema, { maxItems: STREAM_LIMITS.maxNodes });
export const PipeListSchema = Type.Array(PipeSchema, { maxItems: STREAM_LIMITS.maxPipes });
export const IdListSchema = Type.Array(ItemId, { maxItems: STREAM_LIMITS.maxPipes });

export type NodeInput = Static<typeof NodeSchema>;
export type PipeInput = Static<typeof PipeSchema>;
export type StreamCreateInput = Static<typeof StreamCreateSchema>;
export type StreamReplaceInput = Static<typeof StreamReplaceSchema>;
