/**
 * The `tap` built-in: a sink whose frames go to the main thread (StreamRuntime.tap), where the
 * quick EEG streams keep their ring buffer and serve their WebSocket clients. Frames cross the
 * thread boundary copied once, their buffer transferred (runtime/tap-channel.ts). Outside a
 * stream's worker there is no main thread to reach and frames are dropped (counted).
 */
import type { NodeFactory } from '../core/node.js';
import { sendTapFrame, tapChannelInstalled } from '../runtime/tap-channel.js';

export const createTap: NodeFactory = (context) => ({
  start: () => {
    if (!tapChannelInstalled()) context.log('no main thread to reach: frames are dropped');
    return Promise.resolve();
  },
  onFrame(_port, frame) {
    if (tapChannelInstalled()) sendTapFrame(context.nodeId, frame);
    else context.countDropped?.(1);
  },
  stop: () => Promise.resolve(),
});
