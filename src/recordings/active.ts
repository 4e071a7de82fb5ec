/**
 * Which recordings are being written, from the runtime's node statuses: a recorder node shows the
 * file it writes in its status info (`recording`), and keeps that info after it stops, so only
 * nodes in a live state count.
 */

/** The part of a stream's runtime status this needs (streams/runtime/stream-runtime.ts RuntimeStreamStatus). */
export interface NodeStatusLike {
  state: string;
  info?: Record<string, unknown>;
}

const LIVE_STATES = new Set(['initialized', 'running', 'paused']);

/** Names in `info.recording` of every live node of the given stream statuses. */
export function activeRecordingNames(
  statuses: Iterable<{ nodes: Record<string, NodeStatusLike> } | undefined>,
): Set<string> {
  const names = new Set<string>();
  for (const status of statuses) {
    for (const node of Object.values(status?.nodes ?? {})) {
      const name = node.info?.recording;
      if (typeof name === 'string' && LIVE_STATES.has(node.state)) names.add(name);
    }
  }
  return names;
}
