/**
 * Sample rates known before a stream runs: a source whose config fixes its rate (a
 * signal-generator's `sampleRate`, an eeg-source's `samplingFrequency`) passes it down through the
 * processors that keep it (a filter), and a node whose config is impossible at such a rate (a
 * lowpass above Nyquist) is refused at create or edit, pointing at the config field. Without this
 * the stream started, the node went to `error` on its first frame and every frame through it was
 * lost. A rate only the running node knows (the device's current rate, an external program's) is
 * not checked here: the running stream then shows the node in `error` (degraded, views.ts).
 */
import type { BuiltinDescriptor } from '../executables/builtins.js';
import type { NodeInput } from '../schemas/stream.js';
import type { Issue } from '../schemas/validator.js';

export interface RatedNode {
  node: NodeInput;
  index: number;
  builtin: BuiltinDescriptor | undefined;
}

export interface KnownRate {
  rate: number;
  /** The source node that fixes it. */
  source: string;
}

/**
 * The walk down the graph that rates and units share: what a node's output is known to be, from
 * `own` (its own facts, or `'input'` for a node that passes its input's on), memoised per node.
 * Returns the function giving a node's output facts; the graph must be acyclic.
 */
export function upstreamWalk<T>(
  nodes: ReadonlyMap<string, RatedNode>,
  edges: readonly (readonly [string, string])[],
  own: (
    id: string,
    builtin: BuiltinDescriptor | undefined,
    config: Record<string, unknown>,
  ) => readonly T[] | 'input',
): (id: string) => readonly T[] {
  const inputs = new Map<string, string[]>();
  for (const [from, to] of edges) inputs.set(to, [...(inputs.get(to) ?? []), from]);
  const memo = new Map<string, readonly T[]>();
  const outgoing = (id: string): readonly T[] => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const rated = nodes.get(id);
    const facts = own(id, rated?.builtin, (rated?.node.config ?? {}) as Record<string, unknown>);
    const result = facts === 'input' ? (inputs.get(id) ?? []).flatMap((from) => outgoing(from)) : facts;
    memo.set(id, result);
    return result;
  };
  return outgoing;
}

/**
 * Issues of the nodes impossible at a known input rate. `edges` are the graph's pipes as
 * [source, destination] node ids; the graph must be acyclic.
 */
export function rateIssues(
  nodes: ReadonlyMap<string, RatedNode>,
  edges: readonly (readonly [string, string])[],
): Issue[] {
  const outgoing = upstreamWalk<KnownRate>(nodes, edges, (id, builtin, config) => {
    const own = builtin?.outputRate?.(config);
    if (own !== undefined) return [{ rate: own, source: id }];
    return builtin?.keepsRate === true ? 'input' : [];
  });
  const incoming = (id: string): KnownRate[] =>
    edges.flatMap(([from, to]) => (to === id ? outgoing(from) : []));

  const issues: Issue[] = [];
  const seen = new Set<string>();
  for (const [id, { node, index, builtin }] of nodes) {
    const check = builtin?.checkAtRate;
    if (check === undefined) continue;
    const config = (node.config ?? {}) as Record<string, unknown>;
    for (const { rate, source } of incoming(id)) {
      for (const issue of check(config, rate)) {
        const path = `/nodes/${index}/config${issue.path}`;
        if (seen.has(path)) continue;
        seen.add(path);
        issues.push({
          path,
          message: `${builtin?.name ?? ''}: ${issue.message} (the rate of node '${source}')`,
          code: 'validation_failed',
        });
      }
    }
  }
  return issues;
}
