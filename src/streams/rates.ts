/**
 * Sample rates known before a stream runs: a source whose config fixes its rate (a
 * signal-generator's `sampleRate`, an eeg-source's `samplingFrequency`) passes it down through the
 * processors that keep it (a filter) or derive their own from it (band-power, resample), and a node whose config is impossible at such a rate (a
 * lowpass above Nyquist) is refused at create or edit, pointing at the config field. Without this
 * the stream started, the node went to `error` on its first frame and every frame through it was
 * lost. A rate only the running node knows (the device's current rate, an external program's) is
 * not checked here: the running stream then shows the node in `error` (degraded, views.ts).
 */
import type { BuiltinDescriptor } from './executables/builtins.js';
import type { NodeInput } from '../platform/schemas/stream.js';
import type { Issue } from '../platform/schemas/validator.js';

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
    input: () => readonly T[],
  ) => readonly T[] | 'input',
): (id: string) => readonly T[] {
  const inputs = new Map<string, string[]>();
  for (const [from, to] of edges) inputs.set(to, [...(inputs.get(to) ?? []), from]);
  const memo = new Map<string, readonly T[]>();
  const incoming = (id: string): readonly T[] => (inputs.get(id) ?? []).flatMap((from) => outgoing(from));
  const outgoing = (id: string): readonly T[] => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const rated = nodes.get(id);
    const config = (rated?.node.config ?? {}) as Record<string, unknown>;
    const facts = own(id, rated?.builtin, config, () => incoming(id));
    const result = facts === 'input' ? incoming(id) : facts;
    memo.set(id, result);
    return result;
  };
  return outgoing;
}

/**
 * The rates known before the stream runs on each node's output: a source's from its config, a
 * processor's from its input's (kept, or derived: band-power's 1/step, resample's ratio).
 */
export function knownRates(
  nodes: ReadonlyMap<string, RatedNode>,
  edges: readonly (readonly [string, string])[],
): (id: string) => readonly KnownRate[] {
  return upstreamWalk<KnownRate>(nodes, edges, (id, builtin, config, input) => {
    const own = builtin?.outputRate?.(config);
    if (own !== undefined) return [{ rate: own, source: id }];
    if (builtin?.keepsRate === true) return 'input';
    const at = builtin?.outputRateAt;
    if (at === undefined) return [];
    // A rate this node derives from its input's: the node is the source of the rate it gives.
    return input().flatMap(({ rate }) => {
      const derived = at(config, rate);
      return derived === undefined ? [] : [{ rate: derived, source: id }];
    });
  });
}

/**
 * Issues of the nodes impossible at a known input rate. `edges` are the graph's pipes as
 * [source, destination] node ids; the graph must be acyclic.
 */
export function rateIssues(
  nodes: ReadonlyMap<string, RatedNode>,
  edges: readonly (readonly [string, string])[],
): Issue[] {
  const outgoing = knownRates(nodes, edges);
  const incoming = (id: string): readonly KnownRate[] =>
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
