/**
 * Channel names known before a stream runs: a source whose config fixes them (an eeg-source's
 * `channels`, a signal-generator's `channelNames`, an ingest's `channels`) passes them down through
 * the processors that say what they output (a filter keeps them, a reference node picks some), and
 * a node whose config names a channel its input will not have (a reference to `A1` behind an
 * eeg-source without it) is refused at create or edit, pointing at the name. Names only the running
 * node knows (the device's channels by default) are checked when the first frame comes: the node
 * then goes to `error` with the same message.
 */
import type { Issue } from '../schemas/validator.js';
import type { RatedNode } from './rates.js';

/** Issues of the nodes whose config names channels their known input lacks; `edges` acyclic. */
export function channelIssues(
  nodes: ReadonlyMap<string, RatedNode>,
  edges: readonly (readonly [string, string])[],
): Issue[] {
  const inputs = new Map<string, string[]>();
  for (const [from, to] of edges) inputs.set(to, [...(inputs.get(to) ?? []), from]);
  const memo = new Map<string, readonly string[] | undefined>();

  const incoming = (id: string): (readonly string[])[] =>
    (inputs.get(id) ?? []).flatMap((from) => {
      const known = outgoing(from);
      return known === undefined ? [] : [known];
    });
  const outgoing = (id: string): readonly string[] | undefined => {
    if (memo.has(id)) return memo.get(id);
    memo.set(id, undefined);
    const rated = nodes.get(id);
    const config = (rated?.node.config ?? {}) as Record<string, unknown>;
    const produce = rated?.builtin?.outputChannels;
    let known: readonly string[] | undefined;
    if (produce !== undefined) {
      if (rated?.builtin?.role === 'source') known = produce(config, undefined);
      else {
        // A processor fed by one pipe of known channels; with several inputs it is not known.
        const feeds = inputs.get(id) ?? [];
        const from = incoming(id);
        if (feeds.length === 1 && from.length === 1) known = produce(config, from[0]);
      }
    }
    memo.set(id, known);
    return known;
  };

  const issues: Issue[] = [];
  for (const [id, { node, index, builtin }] of nodes) {
    const check = builtin?.checkWithChannels;
    if (check === undefined) continue;
    const config = (node.config ?? {}) as Record<string, unknown>;
    for (const [k, channels] of incoming(id).entries()) {
      const source = inputs.get(id)?.[k] ?? '';
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
