/**
 * The tap channel inside a stream's worker: `tap` nodes send their frames to the main thread, and
 * the main thread hands frames to `ingest` nodes (StreamRuntime.tap / StreamRuntime.feed). One
 * worker runs one stream, so a node id names a node without ambiguity.
 *
 * host.ts installs the channel when the worker gets its stream; outside a worker (a graph run
 * in-process by a test) no channel is installed: taps drop their frames and ingests never emit.
 * A module-level slot rather than a NodeContext field, because nodes of every kind share one
 * context shape and only these two built-ins talk to the main thread this way.
 */
import type { Frame } from '../core/frame.js';
import { toWire, type WireFrame } from './messages.js';

export interface TapChannelPort {
  /** Posts a message to the main thread, transferring `transfer`. */
  post(message: { kind: 'tap-frame'; nodeId: string; frame: WireFrame }, transfer: ArrayBuffer[]): void;
}

let port: TapChannelPort | undefined;
const ingestHandlers = new Map<string, (frame: Frame) => void>();

/** host.ts: frames of tap nodes go out through `target` from now on. */
export function installTapChannel(target: TapChannelPort): void {
  port = target;
}

/** Whether frames of a tap node leave this thread (false outside a stream's worker). */
export function tapChannelInstalled(): boolean {
  return port !== undefined;
}

/**
 * Sends a tap node's frame to the main thread. Frames are shared with other consumers, so the
 * samples are copied once and the copy's buffer is transferred (docs/architecture.md §Data plane).
 */
export function sendTapFrame(nodeId: string, frame: Frame): void {
  if (port === undefined) return;
  const wire = toWire(frame);
  port.post({ kind: 'tap-frame', nodeId, frame: wire }, [wire.data.buffer as ArrayBuffer]);
}

/** An ingest node receives the main thread's frames for its id until the returned function is called. */
export function registerIngest(nodeId: string, onFrame: (frame: Frame) => void): () => void {
  ingestHandlers.set(nodeId, onFrame);
  return () => {
    if (ingestHandlers.get(nodeId) === onFrame) ingestHandlers.delete(nodeId);
  };
}

/** host.ts: a frame from the main thread for an ingest node; false when no such node listens. */
export function deliverIngestFrame(nodeId: string, frame: Frame): boolean {
  const handler = ingestHandlers.get(nodeId);
  if (handler === undefined) return false;
  handler(frame);
  return true;
}
