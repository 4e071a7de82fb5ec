/**
 * Graph validation of a stream document that already matches the schema (docs/api.md §Validation):
 * unique ids, pipes naming existing nodes, no self-loop, no cycle, no duplicate pipe, roles and
 * ports consistent with node types and built-in executables, and each executable resolvable with
 * a config its executable accepts, also at the sample rates known before it runs (rates.ts). Every
 * defect becomes an Issue with a JSON pointer into the document.
 */
import { HeadsetdError } from '../core/errors.js';
import { type BuiltinDescriptor, EXTERNAL_CONFIG } from './executables/builtins.js';
import { resolveExecutable } from './executables/registry.js';
import type { NodeInput, PipeInput } from '../platform/schemas/stream.js';
import { check, type Issue } from '../platform/schemas/validator.js';
import { Type } from 'typebox';
import { DEFAULT_INPUT_PORT, DEFAULT_OUTPUT_PORT } from '../core/stream-model.js';
import { channelIssues } from './channels.js';
import { type RatedNode, rateIssues } from './rates.js';
import { needsIssues } from './input-needs.js';

export interface GraphContext {
  executablesDirs: readonly string[];
  /**
   * The device's channel names, on a running service: an eeg-source naming another is refused when
   * the document is made. Absent (`headsetd validate`): the device says so when the node starts.
   */
  deviceChannels?: () => readonly string[];
  /**
   * The hosts a node may send to (the outbound allow-list), on a running service: an `osc` node
   * sending elsewhere is refused when the document is made. Absent (`headsetd validate`): any host,
   * checked again when the node starts.
   */
  outboundHosts?: () => readonly string[];
  /**
   * The refusal the device gives a subscription to `channels` now (`channels_unavailable` for
   * channels it does not acquire; an empty list: none), on a running service: the same check the
   * device makes when an eeg-source subscribes, made on the main thread when a stream is sent
   * `start`, so that the answer does not wait for a worker. Absent: only the node's start checks.
   */
  subscriptionRefusal?: (channels: readonly string[]) => HeadsetdError | undefined;
}

/** What every external executable's config may hold; the rest is the executable's own. */
export const ExternalCommonConfig = Type.Object({ ...EXTERNAL_CONFIG }, { additionalProperties: true });

function findDuplicates(ids: readonly string[], base: string, what: string): Issue[] {
  const first = new Map<string, number>();
  const issues: Issue[] = [];
  ids.forEach((id, i) => {
    const earlier = first.get(id);
    if (earlier === undefined) first.set(id, i);
    else
      issues.push({
        path: `${base}/${i}/id`,
        message: `${what} id '${id}' is used twice (also at ${base}/${earlier}/id); ids must be unique within a stream`,
        code: 'validation_failed',
      });
  });
  return issues;
}

/** Finds one cycle as a list of node ids (first repeated at the end), or undefined. */
export function findCycle(
  nodeIds: readonly string[],
  edges: readonly (readonly [string, string])[],
): string[] | undefined {
  const next = new Map<string, string[]>(nodeIds.map((id) => [id, []]));
  for (const [from, to] of edges) next.get(from)?.push(to);
  const colour = new Map<string, 'grey' | 'black'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    colour.set(id, 'grey');
    stack.push(id);
    for (const to of next.get(id) ?? []) {
      const c = colour.get(to);
      if (c === 'grey') return [...stack.slice(stack.indexOf(to)), to];
      if (c === undefined) {
        const found = visit(to);
        if (found !== undefined) return found;
      }
    }
    stack.pop();
    colour.set(id, 'black');
    return undefined;
  };
  for (const id of nodeIds) {
    if (colour.get(id) === undefined) {
      const found = visit(id);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

interface NodeFacts {
  index: number;
  builtin: BuiltinDescriptor | undefined;
  acceptsInput: boolean;
  producesOutput: boolean;
  /** The declaration that makes the node take no input (or no output); '' when none did. */
  noInputWhy: string;
  noOutputWhy: string;
}

function nodeIssues(node: NodeInput, index: number, context: GraphContext, issues: Issue[]): NodeFacts {
  const base = `/nodes/${index}`;
  let builtin: BuiltinDescriptor | undefined;
  try {
    const resolution = resolveExecutable(node.executable, context.executablesDirs);
    if (resolution.kind === 'builtin') builtin = resolution.descriptor;
  } catch (error) {
    if (!(error instanceof HeadsetdError)) throw error;
    issues.push({ path: `${base}/executable`, message: error.message.replace(/\.$/, ''), code: error.code });
  }
  const config = (node.config ?? {}) as Record<string, unknown>;
  if (builtin !== undefined) {
    const configIssues = check(builtin.configSchema, config, `${base}/config`);
    issues.push(...configIssues.map((i) => ({ ...i, message: `${builtin.name}: ${i.message}` })));
    if (configIssues.length === 0 && builtin.check !== undefined) {
      const deviceChannels = context.deviceChannels?.();
      const outboundHosts = context.outboundHosts?.();
      const checkContext = {
        ...(deviceChannels === undefined ? {} : { deviceChannels }),
        ...(outboundHosts === undefined ? {} : { outboundHosts }),
      };
      for (const i of builtin.check(config, checkContext)) {
        issues.push({
          path: `${base}/config${i.path}`,
          message: `${builtin.name}: ${i.message}`,
          code: i.code ?? 'validation_failed',
        });
      }
    }
  } else {
    issues.push(...check(ExternalCommonConfig, config, `${base}/config`));
  }

  const metaType = node.meta?.type;
  // Which field declared the node a producer or a consumer, if any: errors point at that field.
  const producerField =
    node.type === 'EXECUTABLE_PRODUCER' ? 'type' : metaType === 'SOURCE' ? 'meta/type' : undefined;
  const consumerField =
    node.type === 'EXECUTABLE_CONSUMER'
      ? 'type'
      : metaType === 'OUTPUT' || metaType === 'RECORDER'
        ? 'meta/type'
        : undefined;
  const producerWhy = producerField === 'type' ? 'type EXECUTABLE_PRODUCER' : 'meta.type SOURCE';
  const consumerWhy = consumerField === 'type' ? 'type EXECUTABLE_CONSUMER' : `meta.type ${metaType ?? ''}`;
  let acceptsInput = producerField === undefined;
  let producesOutput = consumerField === undefined;
  if (builtin?.role === 'source') {
    if (consumerField !== undefined) {
      issues.push({
        path: `${base}/${consumerField}`,
        message: `${builtin.name} is a source; it cannot be declared a consumer (${consumerWhy})`,
        code: 'validation_failed',
      });
    }
    acceptsInput = false;
  }
  if (builtin?.role === 'sink') {
    if (producerField !== undefined) {
      issues.push({
        path: `${base}/${producerField}`,
        message: `${builtin.name} is a sink; it cannot be declared a source (${producerWhy})`,
        code: 'validation_failed',
      });
    }
    producesOutput = false;
  }
  return {
    index,
    builtin,
    acceptsInput,
    producesOutput,
    noInputWhy: producerField === undefined ? '' : producerWhy,
    noOutputWhy: consumerField === undefined ? '' : consumerWhy,
  };
}

function describeRole(node: NodeInput, facts: NodeFacts, side: 'input' | 'output'): string {
  const why = side === 'input' ? facts.noInputWhy : facts.noOutputWhy;
  if (facts.builtin !== undefined && why === '') {
    return `${facts.builtin.name} is a ${facts.builtin.role} and takes no ${side}`;
  }
  return `node '${node.id}' (${why || (facts.builtin?.name ?? '')}) takes no ${side}`;
}

/** All graph defects of `nodes` and `pipes` (schema-valid), with pointers relative to the stream document. */
export function graphIssues(
  nodes: readonly NodeInput[],
  pipes: readonly PipeInput[],
  context: GraphContext,
): Issue[] {
  const issues: Issue[] = [];
  issues.push(
    ...findDuplicates(
      nodes.map((n) => n.id),
      '/nodes',
      'node',
    ),
  );
  issues.push(
    ...findDuplicates(
      pipes.map((p) => p.id),
      '/pipes',
      'pipe',
    ),
  );

  const facts = new Map<string, NodeFacts>();
  nodes.forEach((node, i) => {
    const f = nodeIssues(node, i, context, issues);
    if (!facts.has(node.id)) facts.set(node.id, f);
  });

  const edges: [string, string][] = [];
  /** For each edge, the index of the pipe it came from. */
  const edgePipes: number[] = [];
  const seenEdges = new Map<string, number>();
  pipes.forEach((pipe, i) => {
    const base = `/pipes/${i}`;
    if (pipe.destination !== undefined && pipe.target !== undefined && pipe.destination !== pipe.target) {
      issues.push({
        path: `${base}/target`,
        message: `target ('${pipe.target}') and destination ('${pipe.destination}') disagree; give one of them`,
        code: 'validation_failed',
      });
      return;
    }
    const destination = pipe.destination ?? pipe.target;
    if (destination === undefined) {
      issues.push({
        path: `${base}/destination`,
        message: "'destination' is required (or its synonym 'target')",
        code: 'invalid_request',
      });
      return;
    }
    const from = facts.get(pipe.source);
    const to = facts.get(destination);
    if (from === undefined || to === undefined) {
      // One issue per pipe naming every end that is no node, and the nodes there are: the answer
      // leads with one issue, and an app that left its nodes' ids to be generated (the maker's SDK
      // does) needs to see which ids its pipes should name.
      const unknown = [
        ...(from === undefined ? [`source '${pipe.source}'`] : []),
        ...(to === undefined ? [`destination '${destination}'`] : []),
      ];
      const ids = nodes.map((n) => `'${n.id}'`).join(', ');
      issues.push({
        path:
          from === undefined && to === undefined
            ? base
            : `${base}/${from === undefined ? 'source' : 'destination'}`,
        message: `${unknown.join(' and ')} ${unknown.length > 1 ? 'name' : 'names'} no node of this stream (its nodes are ${ids || 'none'})`,
        code: 'validation_failed',
      });
      return;
    }
    if (pipe.source === destination) {
      issues.push({
        path: base,
        message: `pipe '${pipe.id}' connects node '${pipe.source}' to itself`,
        code: 'validation_failed',
      });
      return;
    }
    const sourceNode = nodes[from.index];
    const destinationNode = nodes[to.index];
    if (sourceNode !== undefined && !from.producesOutput) {
      issues.push({
        path: `${base}/source`,
        message: describeRole(sourceNode, from, 'output'),
        code: 'validation_failed',
      });
    }
    if (destinationNode !== undefined && !to.acceptsInput) {
      issues.push({
        path: `${base}/destination`,
        message: describeRole(destinationNode, to, 'input'),
        code: 'validation_failed',
      });
    }
    const sourcePort = pipe.sourcePort ?? DEFAULT_OUTPUT_PORT;
    const targetPort = pipe.targetPort ?? DEFAULT_INPUT_PORT;
    if (from.builtin !== undefined && from.producesOutput && !from.builtin.outputs.includes(sourcePort)) {
      issues.push({
        path: `${base}/sourcePort`,
        message: `${from.builtin.name} has no output port '${sourcePort}'; its ports: ${from.builtin.outputs.join(', ')}`,
        code: 'validation_failed',
      });
    }
    if (to.builtin !== undefined && to.acceptsInput && !to.builtin.inputs.includes(targetPort)) {
      issues.push({
        path: `${base}/targetPort`,
        message: `${to.builtin.name} has no input port '${targetPort}'; its ports: ${to.builtin.inputs.join(', ')}`,
        code: 'validation_failed',
      });
    }
    const key = JSON.stringify([pipe.source, sourcePort, destination, targetPort]);
    const twin = seenEdges.get(key);
    if (twin !== undefined) {
      issues.push({
        path: base,
        // By id: in an edit the twin may be a pipe of the stream, not of the request body.
        message: `pipe '${pipe.id}' repeats pipe '${pipes[twin]?.id ?? ''}' (same source, destination and ports)`,
        code: 'validation_failed',
      });
      return;
    }
    seenEdges.set(key, i);
    edges.push([pipe.source, destination]);
    edgePipes.push(i);
  });

  const cycle = findCycle(
    nodes.map((n) => n.id),
    edges,
  );
  if (cycle !== undefined) {
    // Blame the last-listed pipe of the cycle: an edit appends its pipes after the stream's (which
    // were acyclic), so this is one the request added and the pointer lands in the request body.
    let index = -1;
    for (let k = 0; k + 1 < cycle.length; k++) {
      edges.forEach(([from, to], e) => {
        if (from === cycle[k] && to === cycle[k + 1]) index = Math.max(index, edgePipes[e] ?? -1);
      });
    }
    issues.push({
      path: index === -1 ? '/pipes' : `/pipes/${index}`,
      message: `the pipes form a cycle: ${cycle.join(' → ')}; a stream must be acyclic`,
      code: 'validation_failed',
    });
  } else {
    const rated = new Map<string, RatedNode>();
    for (const [id, f] of facts) {
      const node = nodes[f.index];
      if (node !== undefined) rated.set(id, { node, index: f.index, builtin: f.builtin });
    }
    issues.push(
      ...rateIssues(rated, edges),
      ...channelIssues(rated, edges),
      ...needsIssues(rated, edges, edgePipes),
    );
  }
  return issues;
}
