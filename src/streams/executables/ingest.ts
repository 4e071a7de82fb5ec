/**
 * The `ingest` built-in: a source fed from the main thread (StreamRuntime.feed), for frames that
 * arrive on the WebSocket /stream/{streamId}/ingest (another headsetd forwarding its quick stream
 * here), through NodeContext.mainThread. The main thread checks each frame against the node's config before feeding it; the node
 * emits what it gets, its channels named as its config names them (the main thread matched them
 * case-insensitively: a sender's `FP1` goes on as the stream's `Fp1`). While paused, frames are dropped (counted) and the first frame after resume
 * is marked as a discontinuity by the runtime.
 */
import type { NodeFactory, NodeInstance } from '../../core/node.js';

export const createIngest: NodeFactory = (context): NodeInstance => {
  let unregister: (() => void) | undefined;
  let paused = false;
  const named = (context.config as { channels?: unknown }).channels;
  const names = Array.isArray(named) ? Object.freeze(named.map(String)) : undefined;
  return {
    start() {
      // Outside a stream's worker nothing feeds the node: it starts and never emits.
      unregister = context.mainThread?.receive((frame) => {
        if (paused) {
          context.countDropped(1);
          return;
        }
        const renamed =
          names !== undefined &&
          names.length === frame.channels.length &&
          names.some((name, i) => name !== frame.channels[i]);
        context.emit('out', renamed ? { ...frame, channels: names } : frame);
      });
      return Promise.resolve();
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
    },
    stop() {
      unregister?.();
      unregister = undefined;
      return Promise.resolve();
    },
  };
};
