/**
 * Regression: ‖h‖₁ of a design with a pole near the unit circle (an order-8 band-pass from 1 Hz
 * at 16 kHz: about a million samples to sum) used to be computed inside onFrame, stalling the
 * stream's worker for hundreds of ms until the watchdog killed healthy streams. It is now summed
 * in slices between turns of the event loop, the filtered frames held meanwhile, in order.
 */
import { expect, test } from 'vitest';
import { designFilter } from '../../dsp/design.js';
import { createFilter } from './filter.js';
import { SosL1Norm, sosL1Norm } from './frame-range.js';
import type { Frame } from '../../core/frame.js';
import { recordingContext } from '../../../test/sdk/fake-node-context.js';
import { eventually } from '../../../test/support/wait.js';

const SPEC = { highpass: 1, lowpass: 40, order: 8 };
const RATE = 16_000;

function frame(seq: number, range?: number): Frame {
  const data = new Float32Array(160 * 2).map((_, i) => Math.sin(i / 7));
  return {
    seq,
    timestamp: seq * 10,
    sampleRate: RATE,
    channels: ['a', 'b'],
    data,
    ...(range === undefined ? {} : { range }),
  };
}

test('a slow ‖h‖₁ is summed in slices: onFrame returns at once, frames follow in order with the exact bound', async () => {
  const sos = designFilter(SPEC, RATE);
  const probe = new SosL1Norm(sos);
  expect(probe.advance(4096 * 4)).toBe(false); // this design is one of the slow ones
  const exact = sosL1Norm(sos);

  const rc = recordingContext(SPEC);
  const node = createFilter(rc.context);
  for (let seq = 0; seq < 5; seq++) node.onFrame?.('in', frame(seq, 100));
  // Nothing has left yet: the frames wait for the bound instead of the thread waiting for it.
  expect(rc.emitted).toHaveLength(0);
  await eventually(() => rc.emitted.length === 5, 20_000, 'the held frames');
  expect(rc.emitted.map((e) => e.frame.seq)).toEqual([0, 1, 2, 3, 4]);
  for (const { frame: out } of rc.emitted) expect(out.range).toBeCloseTo(100 * exact, 6);
  // Once known, frames go straight through.
  node.onFrame?.('in', frame(5, 100));
  expect(rc.emitted).toHaveLength(6);
  await node.stop();
});

test('frames without a range never wait for the bound', async () => {
  const rc = recordingContext(SPEC);
  const node = createFilter(rc.context);
  node.onFrame?.('in', frame(0));
  expect(rc.emitted).toHaveLength(1);
  expect(rc.emitted[0]!.frame.range).toBeUndefined();
  await node.stop();
});

test('a rate change while frames wait releases them with the old design’s bound first', async () => {
  const rc = recordingContext(SPEC);
  const node = createFilter(rc.context);
  node.onFrame?.('in', frame(0, 100));
  expect(rc.emitted).toHaveLength(0);
  node.onFrame?.('in', { ...frame(1, 100), sampleRate: 250, data: new Float32Array(4) });
  expect(rc.emitted[0]!.frame.seq).toBe(0);
  expect(rc.emitted[0]!.frame.range).toBeCloseTo(100 * sosL1Norm(designFilter(SPEC, RATE)), 6);
  await eventually(() => rc.emitted.length === 2, 20_000, 'the frame at the new rate');
  expect(rc.emitted[1]!.frame.range).toBeCloseTo(100 * sosL1Norm(designFilter(SPEC, 250)), 6);
  await node.stop();
});
