/**
 * Whether a node of a stream may be sent a signal now (POST /stream/streams/{id}/nodes/{nodeId}/signal):
 * the node exists, the signal is a name (a lifecycle one or a custom one), and the stream runs or
 * is paused. Throws the error the API answers otherwise.
 */
import { HeadsetdError } from '../core/errors.js';
import type { StreamEntry } from './entry.js';

const NODE_SIGNAL = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export function assertNodeSignal(entry: StreamEntry, nodeId: string, signal: string): void {
  if (!entry.definition.nodes.some((n) => n.id === nodeId)) {
    throw new HeadsetdError('node_not_found', `The stream has no node '${nodeId}'.`, { nodeId });
  }
  if (!NODE_SIGNAL.test(signal)) {
    throw new HeadsetdError(
      'invalid_request',
      `'${signal}' is not a signal name: use start, stop, pause, resume, restart or a custom name of letters, digits, '-' and '_'.`,
      { path: '/signal' },
    );
  }
  if (entry.state !== 'running' && entry.state !== 'paused') {
    throw new HeadsetdError(
      'invalid_state',
      `The stream is ${entry.state}; node signals need it running or paused.`,
      {
        state: entry.state,
        signal,
        allowed: [],
      },
    );
  }
}
