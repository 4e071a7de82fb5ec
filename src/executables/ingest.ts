/**
 * The `ingest` built-in: a source fed from the main thread (StreamRuntime.feed), for frames that
 * arrive on the WebSocket /stream/{streamId}/ingest (another headsetd piping its quick stream
 * here), through NodeContext.mainThread. The main thread checks each frame against the node's config before feeding it; the node
 * emits what it gets. While paused, frames are dropped (counted) and the first frame after resume
 * is marked as a discontinuity by the runtime.
 */
import type { NodeFactory, NodeInstance } from '../core/node.js';

export const createIngest: NodeFactory = (context): NodeInstance => {
  let unregister: (() => void) | undefined;
  let paused = false;
  return {
    start() {
      // Outside a stream's worker nothing feeds the node: it starts and never emits.
      unregister = context.mainThread?.receive((frame) => {
        if (paused) {
          context.countDropped(1);
          return;
        }
        context.emit('out', frame);
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
