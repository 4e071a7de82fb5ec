import { describe, expect, it } from 'vitest';
import type { Frame } from './frame.js';
import { FrameJoiner, joinedRows } from './frame-joiner.js';

const CHANNELS = Object.freeze(['Fp1', 'Cz']);
const RATE = 250;
const T0 = 1_700_000_000_000;

/** Device-like frames of `rows` rows, numbered samples: row r of the run holds r*10 + channel. */
function frames(count: number, rows: number, extra: Partial<Frame> = {}): Frame[] {
  return Array.from({ length: count }, (_, f) => {
    const data = new Float32Array(rows * CHANNELS.length);
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < CHANNELS.length; c++) data[r * CHANNELS.length + c] = (f * rows + r) * 10 + c;
    return {
      seq: f,
      timestamp: T0 + (f * rows * 1000) / RATE,
      sampleRate: RATE,
      channels: CHANNELS,
      data,
      range: 1000,
      createdAt: 5000 + f,
      ...extra,
    };
  });
}

function collect(durationMs: number): { joiner: FrameJoiner; out: Frame[] } {
  const out: Frame[] = [];
  return { joiner: new FrameJoiner(durationMs, (frame) => out.push(frame)), out };
}

function rowsOf(frame: Frame): number[] {
  return Array.from(frame.data)
    .filter((_, i) => i % CHANNELS.length === 0)
    .map((v) => v / 10);
}

describe('FrameJoiner', () => {
  it('joins 3-row frames into frames of 40 ms (10 rows at 250 Hz), splitting where a block ends', () => {
    const { joiner, out } = collect(40);
    for (const frame of frames(10, 3)) joiner.push(frame);
    expect(joinedRows(RATE, 40)).toBe(10);
    expect(out.map(rowsOf)).toEqual([
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      [10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
      [20, 21, 22, 23, 24, 25, 26, 27, 28, 29],
    ]);
    // Each frame is timed by its first row, exactly; channel 1 came through too.
    expect(out.map((f) => f.timestamp)).toEqual([T0, T0 + 40, T0 + 80]);
    expect(Array.from(out[1]?.data.subarray(0, 2) ?? [])).toEqual([100, 101]);
    // The frame that completed a block gives it its creation time (the latency is the last row's).
    expect(out.map((f) => f.createdAt)).toEqual([5003, 5006, 5009]);
    expect(out.every((f) => f.range === 1000 && f.channels === CHANNELS && f.sampleRate === RATE)).toBe(true);
    expect(joiner.pendingRows).toBe(0);
  });

  it('passes a frame of the asked size as it is, without a copy', () => {
    const { joiner, out } = collect(40);
    const [frame] = frames(1, 10);
    joiner.push(frame as Frame);
    expect(out[0]).toBe(frame);
  });

  it('never spans a gap: rows held are delivered first, and the gap opens a block of its own', () => {
    const { joiner, out } = collect(40);
    const [a, b, c, d] = frames(4, 3);
    joiner.push(a as Frame);
    joiner.push(b as Frame);
    joiner.push({ ...(c as Frame), discontinuity: true, lostSamples: 7 });
    joiner.push(d as Frame);
    expect(out).toHaveLength(1);
    expect(rowsOf(out[0] as Frame)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(out[0]?.discontinuity).toBeUndefined();
    joiner.flush();
    expect(out[1]?.discontinuity).toBe(true);
    expect(out[1]?.lostSamples).toBe(7);
    expect(out[1]?.timestamp).toBe(c?.timestamp);
    expect(rowsOf(out[1] as Frame)).toEqual([6, 7, 8, 9, 10, 11]);
  });

  it('keeps the gap flags with the first rows of a split frame, and times its rest by its own first row', () => {
    const { joiner, out } = collect(8); // 2 rows at 250 Hz
    const [frame] = frames(1, 3, { discontinuity: true, lostSamples: 4 });
    joiner.push(frame as Frame);
    joiner.flush();
    expect(out.map(rowsOf)).toEqual([[0, 1], [2]]);
    expect(out[0]).toMatchObject({ discontinuity: true, lostSamples: 4, timestamp: T0 });
    expect(out[1]?.discontinuity).toBeUndefined();
    expect(out[1]?.lostSamples).toBeUndefined();
    expect(out[1]?.timestamp).toBe(T0 + 8);
  });

  it('delivers the rows held when the channels, rate or range change', () => {
    for (const change of [
      { channels: ['Fp1', 'O1'] },
      { sampleRate: 500 },
      { range: 2000 },
    ] as Partial<Frame>[]) {
      const { joiner, out } = collect(40);
      const [a, b] = frames(2, 3);
      joiner.push(a as Frame);
      joiner.push({ ...(b as Frame), ...change });
      expect(out).toHaveLength(1);
      expect(rowsOf(out[0] as Frame)).toEqual([0, 1, 2]);
      expect(joiner.pendingRows).toBe(3);
    }
  });

  it('passes an empty frame on at once, after the rows held', () => {
    const { joiner, out } = collect(40);
    const [a] = frames(1, 3);
    joiner.push(a as Frame);
    const empty: Frame = { seq: 0, timestamp: T0, sampleRate: RATE, channels: [], data: new Float32Array(0) };
    joiner.push(empty);
    expect(out).toHaveLength(2);
    expect(out[1]).toBe(empty);
  });
});
