/**
 * Validates whole stream documents and normalises them into StreamDefinitions. The API and
 * `headsetd validate` both call these functions, so they give identical errors.
 */
import type { TSchema } from 'typebox';
import { HeadsetdError } from '../core/errors.js';
import { resolveExecutable } from './executables/registry.js';
import {
  type NodeInput,
  type PipeInput,
  StreamCreateSchema,
  StreamReplaceSchema,
} from '../platform/schemas/stream.js';
import { check, type Issue, issuesToError } from '../platform/schemas/validator.js';
import { type GraphContext, graphIssues } from './graph-document.js';
import type { NodeDef, PipeDef, StreamDefinition, StreamMeta } from '../core/stream-model.js';

export { isUuid } from '../core/uuid.js';

/** Drops the read-only `status` and renames `target` to `destination`. */
export function normaliseNode(node: NodeInput): NodeDef {
  const { status: _status, ...rest } = node;
  // `config` and `meta` are open objects: the schema guarantees objects, their keys are the executable's.
  return rest as NodeDef;
}

export function normalisePipe(pipe: PipeInput): PipeDef {
  const { target, destination, ...rest } = pipe;
  // graphIssues has already refused a pipe with neither.
  return { ...rest, destination: destination ?? target ?? '' };
}

/** A definition's nodes and pipes in their input form, so a whole edited graph can be checked again. */
export function asInput(definition: Pick<StreamDefinition, 'nodes' | 'pipes'>): {
  nodes: NodeInput[];
  pipes: PipeInput[];
} {
  return { nodes: definition.nodes, pipes: definition.pipes };
}

/** Throws the envelope error for the graph's defects, if any. */
export function assertGraph(
  nodes: readonly NodeInput[],
  pipes: readonly PipeInput[],
  context: GraphContext,
): void {
  const issues = graphIssues(nodes, pipes, context);
  if (issues.length > 0) throw issuesToError(issues, 'The stream');
}

/**
 * Before a start: every node's executable must still be allowed under the rules in force now. A
 * stream stored by an older headsetd, whose rules let more through, or whose allowed directories
 * have changed since, is refused with 403 here rather than run. Other defects (a script removed
 * since) are left to the start, which reports them in the stream's status.
 */
export function assertExecutablesAllowed(definition: StreamDefinition, context: GraphContext): void {
  const issues: Issue[] = [];
  definition.nodes.forEach((node, index) => {
    try {
      resolveExecutable(node.executable, context.executablesDirs);
    } catch (error) {
      if (error instanceof HeadsetdError && error.code === 'executable_not_allowed') {
        issues.push({
          path: `/nodes/${index}/executable`,
          message: error.message.replace(/\.$/, ''),
          code: error.code,
        });
      }
    }
  });
  if (issues.length > 0) throw issuesToError(issues, 'The stream');
}

/**
 * The document without meta.created and meta.updated: the server sets them, so what a client
 * sends there is ignored whatever its type, rather than refused when it is not a string.
 */
function dropServerMeta(document: object): object {
  const meta = (document as { meta?: unknown }).meta;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return document;
  const { created: _created, updated: _updated, ...rest } = meta as Record<string, unknown>;
  return { ...document, meta: rest };
}

function parseDocument(schema: TSchema, document: unknown, context: GraphContext) {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new HeadsetdError(
      'invalid_request',
      'The stream must be an object with id, meta, nodes and pipes.',
      { path: '' },
    );
  }
  const withoutServerFields = dropServerMeta(document);
  const schemaIssues = check(schema, withoutServerFields);
  if (schemaIssues.length > 0) throw issuesToError(schemaIssues, 'The stream');
  const doc = withoutServerFields as {
    meta?: Record<string, unknown>;
    nodes?: NodeInput[];
    pipes?: PipeInput[];
  };
  const nodes = doc.nodes ?? [];
  const pipes = doc.pipes ?? [];
  assertGraph(nodes, pipes, context);
  const { created: _created, updated: _updated, ...meta } = doc.meta ?? {};
  return { meta, nodes: nodes.map(normaliseNode), pipes: pipes.map(normalisePipe) };
}

export type DefinitionBody = Omit<StreamDefinition, 'meta'> & {
  meta: Omit<StreamMeta, 'created' | 'updated'>;
};

/** A create document (POST): the id must be a UUID; answered lower case. */
export function parseCreateDocument(document: unknown, context: GraphContext): DefinitionBody {
  const parsed = parseDocument(StreamCreateSchema, document, context);
  const id = (document as { id: string }).id.toLowerCase();
  return { id, ...parsed };
}

/** A replace document (PUT): an id in the body must equal the path's. */
export function parseReplaceDocument(
  document: unknown,
  pathId: string,
  context: GraphContext,
): DefinitionBody {
  const parsed = parseDocument(StreamReplaceSchema, document, context);
  const bodyId = (document as { id?: string }).id;
  if (bodyId !== undefined && bodyId.toLowerCase() !== pathId.toLowerCase()) {
    throw new HeadsetdError(
      'validation_failed',
      `The body's id '${bodyId}' differs from the path's '${pathId}'; leave it out or make them equal.`,
      { path: '/id' },
    );
  }
  return { id: pathId.toLowerCase(), ...parsed };
}
