/**
 * Sample rates known before a stream runs: a source whose config fixes its rate (a
 * signal-generator's `sampleRate`, an eeg-source's `samplingFrequency`) passes it down through the
 * processors that keep it (a filter) or derive their own from it (band-power, resample), and a node whose config is impossible at such a rate (a
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

interface KnownRate {
  rate: number;
  /** The source node that fixes it. */
  source: string;
}

/**
 * Issues of the nodes impossible at a known input rate. `edges` are the graph's pipes as
 * [source, destination] node ids; the graph must be acyclic.
 */
export function rateIssues(
  nodes: ReadonlyMap<string, RatedNode>,
  edges: readonly (readonly [string, string])[],
): Issue[] {
  const inputs = new Map<string, string[]>();
  for (const [from, to] of edges) inputs.set(to, [...(inputs.get(to) ?? []), from]);
  const memo = new Map<string, KnownRate[]>();

  const incoming = (id: string): KnownRate[] => (inputs.get(id) ?? []).flatMap((from) => outgoing(from));
  const outgoing = (id: string): KnownRate[] => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const rated = nodes.get(id);
    const config = (rated?.node.config ?? {}) as Record<string, unknown>;
    let rates: KnownRate[] = [];
    const own = rated?.builtin?.outputRate?.(config);
    const at = rated?.builtin?.outputRateAt;
    if (own !== undefined) rates = [{ rate: own, source: id }];
    else if (rated?.builtin?.keepsRate === true) rates = incoming(id);
    else if (at !== undefined) {
      // A rate this node derives from its input's: the node is the source of the rate it gives.
      rates = incoming(id).flatMap(({ rate }) => {
        const derived = at(config, rate);
        return derived === undefined ? [] : [{ rate: derived, source: id }];
      });
    }
    memo.set(id, rates);
    return rates;
  };

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
