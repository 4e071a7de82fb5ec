/**
 * What a node needs of its input (a built-in's `needs`: µV samples, a lowest rate), checked when a
 * stream is made or edited on what is known before it runs: the rates the sources fix
 * (./rates.ts) and the units they declare (`outputUnits`, passed on by processors that keep their
 * input's units, `keepsUnits`). A pipe that cannot satisfy its destination is refused with a 422
 * at that pipe, naming the node and the source, never left to fail at run time in silence. What
 * only the running node knows (the device's channels, an ingest's, an external program's output)
 * is not checked here.
 */
import type { Issue } from '../platform/schemas/validator.js';
import { MICROVOLT } from '../core/frame.js';
import { knownRates, type RatedNode, upstreamWalk } from './rates.js';

interface KnownUnits {
  /** Every unit the output's channels are in. */
  units: readonly string[];
  /** The node that declares them. */
  source: string;
}

/**
 * Issues of the pipes whose known input a node cannot take. `edges` are the graph's pipes as
 * [source, destination] node ids, `edgePipes` each one's index in the document's pipes.
 */
export function needsIssues(
  nodes: ReadonlyMap<string, RatedNode>,
  edges: readonly (readonly [string, string])[],
  edgePipes: readonly number[],
): Issue[] {
  const units = upstreamWalk<KnownUnits>(nodes, edges, (id, builtin, config) => {
    const own = builtin?.outputUnits?.(config);
    if (own !== undefined) return [{ units: own, source: id }];
    return builtin?.keepsUnits === true ? 'input' : [];
  });
  const rates = knownRates(nodes, edges);
  const issues: Issue[] = [];
  edges.forEach(([from, to], e) => {
    const needs = nodes.get(to)?.builtin?.needs;
    if (needs === undefined) return;
    const path = `/pipes/${edgePipes[e] ?? e}`;
    const name = nodes.get(to)?.builtin?.name ?? '';
    const refuse = (message: string): void => {
      issues.push({ path, message: `${name} node '${to}' ${message}`, code: 'validation_failed' });
    };
    if (needs.units === MICROVOLT) {
      const other = units(from).find((known) => known.units.some((unit) => unit !== MICROVOLT));
      if (other !== undefined) {
        const odd = other.units.filter((unit) => unit !== MICROVOLT).join(', ');
        refuse(
          `takes EEG in µV, but node '${other.source}' outputs ${odd} through this pipe; connect it to a source of EEG (an eeg-source, or a filter of one)`,
        );
        return;
      }
    }
    if (needs.minRate !== undefined) {
      const slow = rates(from).find((known) => known.rate < (needs.minRate as number));
      if (slow !== undefined) {
        refuse(
          `needs at least ${needs.minRate} Hz, but node '${slow.source}' gives ${slow.rate} Hz through this pipe`,
        );
      }
    }
  });
  return issues;
}
