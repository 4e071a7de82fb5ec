import { describe, expect, test } from 'vitest';
import type { Frame } from '../../core/frame.js';
import { BLOCK_HARD_CAP_MAX, blockHardCap, Pipe } from './pipe.js';

function frame(seq: number): Frame {
  return { seq, timestamp: seq, sampleRate: 100, channels: ['a'], data: new Float32Array([seq]) };
}

function newPipe(policy: 'drop-oldest' | 'block', capacity: number): Pipe {
  return new Pipe({
    id: 'p',
    source: 's',
    sourcePort: 'out',
    destination: 'd',
    targetPort: 'in',
    policy,
    capacity,
  });
}

describe('Pipe, drop-oldest', () => {
  test('keeps the newest `capacity` frames and counts each discarded one', () => {
    const pipe = newPipe('drop-oldest', 3);
    const outcomes = [0, 1, 2, 3, 4].map((i) => pipe.push(frame(i)));
    expect(outcomes).toEqual(['queued', 'queued', 'queued', 'dropped-oldest', 'dropped-oldest']);
    expect(pipe.depth).toBe(3);
    expect(pipe.framesDropped).toBe(2);
    expect(pipe.framesSent).toBe(5);
    expect([pipe.shift()?.seq, pipe.shift()?.seq, pipe.shift()?.seq, pipe.shift()]).toEqual([
      2,
      3,
      4,
      undefined,
    ]);
    expect(pipe.depth).toBe(0);
  });

  test('stays bounded and in order over many frames', () => {
    const pipe = newPipe('drop-oldest', 64);
    for (let i = 0; i < 10_000; i++) pipe.push(frame(i));
    expect(pipe.depth).toBe(64);
    expect(pipe.framesDropped).toBe(10_000 - 64);
    expect(pipe.shift()?.seq).toBe(10_000 - 64);
  });

  test('the first frame delivered after a discarded one says `discontinuity`, the frames before it and after it do not', () => {
    // A consumer that keeps state across frames (a window, a filter) must not join the samples on
    // either side of the lost ones: its next value would be stamped and computed over a gap.
    const pipe = newPipe('drop-oldest', 3);
    for (let i = 0; i < 5; i++) pipe.push(frame(i));
    const delivered = [pipe.shift(), pipe.shift(), pipe.shift()];
    expect(delivered.map((f) => [f?.seq, f?.discontinuity])).toEqual([
      [2, true],
      [3, undefined],
      [4, undefined],
    ]);
    // The frames a fan-out shares are never altered: the pipe delivers a marked copy.
    const shared = frame(9);
    const one = newPipe('drop-oldest', 1);
    one.push(frame(8));
    one.push(shared);
    expect(one.shift()).toEqual({ ...shared, discontinuity: true });
    expect(shared.discontinuity).toBeUndefined();
  });

  test('never reports congestion: only block pipes hold producers back', () => {
    const pipe = newPipe('drop-oldest', 1);
    pipe.push(frame(0));
    pipe.push(frame(1));
    expect(pipe.congested).toBe(false);
  });
});

describe('Pipe, block', () => {
  test('is congested at capacity, lossless up to the hard cap, then refuses new frames', () => {
    const pipe = newPipe('block', 4);
    const cap = blockHardCap(4);
    expect(cap).toBe(64);
    for (let i = 0; i < 4; i++) expect(pipe.push(frame(i))).toBe('queued');
    expect(pipe.congested).toBe(true);
    for (let i = 4; i < cap; i++) expect(pipe.push(frame(i))).toBe('queued');
    expect(pipe.push(frame(cap))).toBe('refused');
    expect(pipe.framesDropped).toBe(1);
    expect(pipe.overflows).toBe(1);
    expect(pipe.depth).toBe(cap);
    // What was queued is intact and in order: the refused frame is the one lost.
    expect(pipe.shift()?.seq).toBe(0);
  });

  test('the first frame queued after a refused one says `discontinuity`', () => {
    const pipe = newPipe('block', 1);
    const cap = blockHardCap(1);
    for (let i = 0; i < cap; i++) pipe.push(frame(i));
    expect(pipe.push(frame(cap))).toBe('refused');
    for (let i = 0; i < cap; i++) expect(pipe.shift()?.discontinuity).toBeUndefined();
    pipe.push(frame(cap + 1));
    pipe.push(frame(cap + 2));
    expect([pipe.shift(), pipe.shift()].map((f) => [f?.seq, f?.discontinuity])).toEqual([
      [cap + 1, true],
      [cap + 2, undefined],
    ]);
  });

  test('the hard cap never exceeds its maximum nor falls below capacity', () => {
    expect(blockHardCap(65_536)).toBe(65_536);
    expect(blockHardCap(10_000)).toBe(BLOCK_HARD_CAP_MAX);
    expect(blockHardCap(1)).toBe(16);
  });

  test('clear discards queued frames and reports how many', () => {
    const pipe = newPipe('block', 8);
    for (let i = 0; i < 5; i++) pipe.push(frame(i));
    expect(pipe.clear()).toBe(5);
    expect(pipe.depth).toBe(0);
  });
});
