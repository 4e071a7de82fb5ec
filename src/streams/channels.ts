/**
 * Channel names known before a stream runs: a source whose config fixes them (an eeg-source's
 * `channels`, a signal-generator's `channelNames`, an ingest's `channels`) passes them down through
 * the processors that say what they output (a filter keeps them, a reference node picks some), and
 * a node whose config names a channel its input will not have (a reference to `A1` behind an
 * eeg-source without it) is refused at create or edit, pointing at the name. Names only the running
 * node knows (the device's channels by default) are checked when the first frame comes: the node
 * then goes to `error` with the same message.
 */
import type { Issue } from '../platform/schemas/validator.js';
import { type RatedNode, upstreamWalk } from './rates.js';

/** Channel names a node's output is known to have, and the node that fixes them. */
interface KnownChannels {
  channels: readonly string[];
  source: string;
}

/** Issues of the nodes whose config names channels their known input lacks; `edges` acyclic. */
export function channelIssues(
  nodes: ReadonlyMap<string, RatedNode>,
  edges: readonly (readonly [string, string])[],
): Issue[] {
  const feeds = (id: string): number => edges.filter(([, to]) => to === id).length;
  const outgoing = upstreamWalk<KnownChannels>(nodes, edges, (id, builtin, config, input) => {
    const produce = builtin?.outputChannels;
    if (produce === undefined) return [];
    // A processor's are known when it is fed by one pipe of known channels; with several, not.
    const from = builtin?.role === 'source' ? undefined : input();
    if (from !== undefined && (feeds(id) !== 1 || from.length !== 1)) return [];
    const known = produce(config, from?.[0]?.channels);
    return known === undefined ? [] : [{ channels: known, source: id }];
  });
  const incoming = (id: string): readonly KnownChannels[] =>
    edges.flatMap(([from, to]) => (to === id ? outgoing(from) : []));

  const issues: Issue[] = [];
  for (const [id, { node, index, builtin }] of nodes) {
    const check = builtin?.checkWithChannels;
    if (check === undefined) continue;
    const config = (node.config ?? {}) as Record<string, unknown>;
    for (const { channels, source } of incoming(id)) {
      const found = check(config, channels);
      for (const issue of found) {
        issues.push({
          path: `/nodes/${index}/config${issue.path}`,
          message: `${builtin?.name ?? ''}: ${issue.message} (the output of node '${source}')`,
          code: 'validation_failed',
        });
      }
      if (found.length > 0) break;
    }
  }
  return issues;
}
