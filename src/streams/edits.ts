/**
 * Edits of a stream's graph as pure functions: each takes the current nodes and pipes and a request,
 * and returns the whole new graph (validated by the caller as a whole) or throws. Nothing is
 * applied here, which is what makes an edit all-or-nothing.
 */
import { HeadsetdError } from '../core/errors.js';
import {
  NodeListSchema,
  type NodeInput,
  type PipeInput,
  PipeListSchema,
  IdListSchema,
} from '../platform/schemas/stream.js';
import { check, issuesToError } from '../platform/schemas/validator.js';
import type { NodeDef, PipeDef } from '../core/stream-model.js';
import { normaliseNode, normalisePipe } from './stream-document.js';

/** The nodes and pipes of a stream document; the graph a worker runs is streams/runtime/running-graph.ts. */
export interface GraphDocument {
  nodes: NodeDef[];
  pipes: PipeDef[];
}

function assertList<T>(
  schema: typeof NodeListSchema | typeof PipeListSchema | typeof IdListSchema,
  value: unknown,
  what: string,
): T[] {
  if (!Array.isArray(value)) {
    // Bodies come as JSON or YAML: name both forms of a list.
    throw new HeadsetdError(
      'invalid_request',
      `The body must be a list of ${what} (a JSON array or a YAML sequence).`,
      {
        path: '',
      },
    );
  }
  const issues = check(schema, value);
  if (issues.length > 0) throw issuesToError(issues, 'The body');
  if (value.length === 0) {
    throw new HeadsetdError(
      'validation_failed',
      `The body is an empty array; give at least one of the ${what}.`,
      { path: '' },
    );
  }
  return value as T[];
}

function assertNoRepeats(ids: readonly string[], what: string): void {
  const seen = new Set<string>();
  ids.forEach((id, i) => {
    if (seen.has(id)) {
      throw new HeadsetdError('validation_failed', `The body names ${what} '${id}' twice.`, {
        path: `/${i}`,
      });
    }
    seen.add(id);
  });
}

export function addNodes(graph: GraphDocument, body: unknown): { graph: GraphDocument; added: string[] } {
  const nodes = assertList<NodeInput>(NodeListSchema, body, 'nodes');
  assertNoRepeats(
    nodes.map((n) => n.id),
    'node',
  );
  nodes.forEach((node, i) => {
    if (graph.nodes.some((n) => n.id === node.id)) {
      throw new HeadsetdError(
        'node_exists',
        `The stream already has a node '${node.id}'; choose another id.`,
        { path: `/${i}/id` },
      );
    }
  });
  return {
    graph: { nodes: [...graph.nodes, ...nodes.map(normaliseNode)], pipes: graph.pipes },
    added: nodes.map((n) => n.id),
  };
}

export function removeNodes(
  graph: GraphDocument,
  body: unknown,
): { graph: GraphDocument; removed: string[]; removedPipes: string[] } {
  const ids = assertList<string>(IdListSchema, body, 'node ids');
  assertNoRepeats(ids, 'node');
  ids.forEach((id, i) => {
    if (!graph.nodes.some((n) => n.id === id)) {
      throw new HeadsetdError('node_not_found', `The stream has no node '${id}'; nothing was removed.`, {
        path: `/${i}`,
      });
    }
  });
  const gone = new Set(ids);
  const removedPipes = graph.pipes
    .filter((p) => gone.has(p.source) || gone.has(p.destination))
    .map((p) => p.id);
  return {
    graph: {
      nodes: graph.nodes.filter((n) => !gone.has(n.id)),
      pipes: graph.pipes.filter((p) => !removedPipes.includes(p.id)),
    },
    removed: ids,
    removedPipes,
  };
}

export function addPipes(graph: GraphDocument, body: unknown): { graph: GraphDocument; added: string[] } {
  const pipes = assertList<PipeInput>(PipeListSchema, body, 'pipes');
  assertNoRepeats(
    pipes.map((p) => p.id),
    'pipe',
  );
  pipes.forEach((pipe, i) => {
    if (graph.pipes.some((p) => p.id === pipe.id)) {
      throw new HeadsetdError(
        'pipe_exists',
        `The stream already has a pipe '${pipe.id}'; choose another id.`,
        { path: `/${i}/id` },
      );
    }
    if (pipe.destination === undefined && pipe.target === undefined) {
      throw new HeadsetdError('invalid_request', "'destination' is required (or its synonym 'target').", {
        path: `/${i}/destination`,
      });
    }
  });
  return {
    graph: { nodes: graph.nodes, pipes: [...graph.pipes, ...pipes.map(normalisePipe)] },
    added: pipes.map((p) => p.id),
  };
}

export function removePipes(
  graph: GraphDocument,
  body: unknown,
): { graph: GraphDocument; removed: string[] } {
  const ids = assertList<string>(IdListSchema, body, 'pipe ids');
  assertNoRepeats(ids, 'pipe');
  ids.forEach((id, i) => {
    if (!graph.pipes.some((p) => p.id === id)) {
      throw new HeadsetdError('pipe_not_found', `The stream has no pipe '${id}'; nothing was removed.`, {
        path: `/${i}`,
      });
    }
  });
  const gone = new Set(ids);
  return { graph: { nodes: graph.nodes, pipes: graph.pipes.filter((p) => !gone.has(p.id)) }, removed: ids };
}
