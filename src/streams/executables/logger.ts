/** The `logger` built-in: one line per frame (seq, samples, channel count) in the node's log. */
import { frameSamples } from '../../core/frame.js';
import type { NodeFactory } from '../../core/node.js';

export const createLogger: NodeFactory = (context) => ({
  start: () => Promise.resolve(),
  onFrame(port, frame) {
    const gap = frame.discontinuity === true ? ' discontinuity' : '';
    context.log(
      `${port}: seq=${frame.seq} samples=${frameSamples(frame)} channels=${frame.channels.length} sampleRate=${frame.sampleRate}${gap}`,
    );
  },
  stop: () => Promise.resolve(),
});
