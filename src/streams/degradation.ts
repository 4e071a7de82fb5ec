/**
 * The events the manager draws from the runtime's about a running stream that does not deliver
 * all it should (docs/api.md §Lifecycle, §Channels a stream may rely on): a node left in `error`,
 * or a node that holds its frames back (`StreamEntry.held`), makes the stream degraded
 * (`stream_degraded`); a node that delivers again ends it (`stream_recovered`).
 */
import type { RuntimeEvent } from './runtime/stream-runtime.js';
import type { StreamEntry } from './entry.js';

/**
 * A node of a running stream went to `error` for good (`cause: 'node_error'`: the stream runs on
 * without it), or holds its frames back because its source cannot deliver them (`'held'`).
 */
export interface StreamDegradedEvent {
  type: 'stream_degraded';
  streamId: string;
  nodeId: string;
  message: string;
  cause: 'node_error' | 'held';
}

/** A node that held its frames back delivers again: the stream is no longer degraded by it. */
export interface StreamRecoveredEvent {
  type: 'stream_recovered';
  streamId: string;
  nodeId: string;
}

const RUNNING = new Set<StreamEntry['state']>(['starting', 'running', 'pausing', 'paused']);

/**
 * What a runtime event means for the stream's health, applied to `entry.held` (replaced, never
 * changed in place); the event to announce, if any.
 */
export function degradation(
  entry: StreamEntry | undefined,
  event: RuntimeEvent,
): StreamDegradedEvent | StreamRecoveredEvent | undefined {
  if (entry === undefined) return undefined;
  const { streamId } = event;
  const live = entry.state === 'running' || entry.state === 'paused';
  if (event.type === 'node_crashed') {
    // A node left in `error` (no restart) while the rest runs: degraded (views.ts).
    if (!live || event.willRestart) return undefined;
    return {
      type: 'stream_degraded',
      streamId,
      nodeId: event.nodeId,
      message: event.message,
      cause: 'node_error',
    };
  }
  const running = RUNNING.has(entry.state);
  if (event.type === 'node_degraded') {
    if (!running) return undefined;
    entry.held = new Map(entry.held).set(event.nodeId, event.message);
    return { type: 'stream_degraded', streamId, nodeId: event.nodeId, message: event.message, cause: 'held' };
  }
  if (event.type === 'node_recovered' && entry.held.has(event.nodeId)) {
    const held = new Map(entry.held);
    held.delete(event.nodeId);
    entry.held = held;
    return running ? { type: 'stream_recovered', streamId, nodeId: event.nodeId } : undefined;
  }
  return undefined;
}
