/**
 * The `tap` built-in: a sink whose frames go to the main thread (StreamRuntime.tap), where the
 * quick EEG streams keep their ring buffer and serve their WebSocket clients. Frames cross the
 * thread boundary copied once, their buffer transferred (NodeContext.mainThread). Outside a
 * stream's worker there is no main thread to reach and frames are dropped (counted).
 */
import type { NodeFactory } from '../../core/node.js';

export const createTap: NodeFactory = (context) => ({
  start: () => {
    if (context.mainThread === undefined) context.log('no main thread to reach: frames are dropped');
    return Promise.resolve();
  },
  onFrame(_port, frame) {
    if (context.mainThread === undefined) context.countDropped(1);
    else context.mainThread.send(frame);
  },
  stop: () => Promise.resolve(),
});
