/**
 * Regression: the count of samples a device lost before a frame (`lostSamples`) did not exist, so
 * a recorder behind eeg-source → filter called a loss of 7 packets "paused or interrupted". The
 * filter keeps the rate, so it passes the count on with the discontinuity.
 */
import { expect, test } from 'vitest';
import { createFilter } from './filter.js';
import type { Frame } from '../../core/frame.js';
import { recordingContext } from '../../../test/sdk/fake-node-context.js';

test('a filter passes lostSamples on with the discontinuity of the frame after a loss', async () => {
  const rc = recordingContext({ highpass: 1, lowpass: 40 });
  const node = createFilter(rc.context);
  const frame = (seq: number, extra: Partial<Frame> = {}): Frame => ({
    seq,
    timestamp: seq * 40,
    sampleRate: 250,
    channels: ['FP1'],
    data: new Float32Array(10).fill(1),
    ...extra,
  });
  node.onFrame?.('in', frame(0));
  node.onFrame?.('in', frame(1, { discontinuity: true, lostSamples: 7 }));
  node.onFrame?.('in', frame(2));
  expect(rc.emitted.map((e) => e.frame.lostSamples)).toEqual([undefined, 7, undefined]);
  expect(rc.emitted[1]?.frame.discontinuity).toBe(true);
  await node.stop();
});
