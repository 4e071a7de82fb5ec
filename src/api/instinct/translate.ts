/**
 * Translation between the maker's SDK documents and the reference stream documents
 * (docs/instinct-sdk.md §Streams). Only the differences of shape are translated here; what a
 * stream may contain is checked by the stream manager, as for the reference paths.
 *
 * - `meta: null` (a stream or node without metadata) is no metadata.
 * - A text `meta.version` ("1.0.0") is kept as `meta.versionText`, since the reference version is a
 *   number; read back through the SDK paths it is `version` again.
 * - On reads, every node has a `config` object and a `meta` (null when absent), every pipe a
 *   `destination`, as the SDK's models require.
 */
import type { NodeDef, PipeDef, StreamDefinition } from '../../core/stream-model.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function streamMetaIn(meta: unknown): Json | undefined {
  if (meta === null || meta === undefined) return undefined;
  if (!isObject(meta)) return meta as Json; // refused by the manager with its pointer
  const { version, ...rest } = meta;
  if (typeof version === 'string') return { ...rest, versionText: version };
  return meta;
}

/** A node as the SDK sends it → a node of the reference document. */
export function nodeIn(node: unknown): unknown {
  if (!isObject(node)) return node;
  const { meta, ...rest } = node;
  return meta === null || meta === undefined ? rest : { ...rest, meta };
}

/** A stream as the SDK sends it → a stream document of the reference paths. */
export function streamIn(body: unknown): unknown {
  if (!isObject(body)) return body;
  const { meta, nodes, ...rest } = body;
  const translatedMeta = streamMetaIn(meta);
  return {
    ...rest,
    ...(translatedMeta === undefined ? {} : { meta: translatedMeta }),
    ...(nodes === undefined ? {} : { nodes: Array.isArray(nodes) ? nodes.map(nodeIn) : nodes }),
  };
}

export function nodeOut(node: NodeDef): Json {
  return { ...node, config: node.config ?? {}, meta: node.meta ?? null };
}

export function pipeOut(pipe: PipeDef): Json {
  return { ...pipe };
}

/** A stored stream → the stream the SDK's model reads. */
export function streamOut(definition: StreamDefinition, state: string): Json {
  const { versionText, ...meta } = definition.meta;
  return {
    id: definition.id,
    meta: typeof versionText === 'string' ? { ...meta, version: versionText } : definition.meta,
    nodes: definition.nodes.map(nodeOut),
    pipes: definition.pipes.map(pipeOut),
    state,
  };
}
