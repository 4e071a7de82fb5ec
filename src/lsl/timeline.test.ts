/**
 * The LSL timeline on stamps made here: outlets that stamp their chunks when they push them, with
 * jitter, a stall, a real skip, stamps stepping back, a source faster than its declared rate. Each
 * sample's value is its index at the source, so every row out says which sample it is; its time
 * is the block's time + row / rate, as the framer computes it.
 */
import { describe, expect, test } from 'vitest';
import { prng } from '../../test/support/prng.js';
import { lslToUnixMs } from './clock.js';
import { type LslBlock, LslTimeline } from './timeline.js';

const RATE = 250;
const START = 5000.25;

interface Out {
  /** The source's index of the row. */
  readonly index: number;
  /** Its time, ms on the wall clock. */
  readonly ms: number;
}

/** The rows of the blocks, each with its time. */
function rowsOf(blocks: readonly LslBlock[]): Out[] {
  return blocks.flatMap((block) =>
    Array.from({ length: block.rows }, (_, r) => ({
      index: block.data[r] as number,
      ms: block.timestamp + (r * 1000) / RATE,
    })),
  );
}

/**
 * Samples 0..count-1 of a source at `rate` (acquired at START + i / rate), pushed in chunks of
 * `chunk`, each stamped with its push time: its last sample's acquisition + `delay` + jitter.
 */
function pushTime(options: {
  count: number;
  chunk: number;
  jitter?: number;
  rate?: number;
  skip?: readonly number[];
  seed?: number;
}): { values: number[]; stamps: number[] }[] {
  const rate = options.rate ?? RATE;
  const random = prng(options.seed ?? 1);
  const batches: { values: number[]; stamps: number[] }[] = [];
  for (let first = 0; first < options.count; first += options.chunk) {
    const last = Math.min(options.count, first + options.chunk) - 1;
    const stamp = START + last / rate + 0.002 + (options.jitter ?? 0) * random();
    const indices = Array.from({ length: last - first + 1 }, (_, k) => first + k).filter(
      (i) => !(options.skip ?? []).includes(i),
    );
    batches.push({ values: indices, stamps: indices.map(() => stamp) });
  }
  return batches;
}

function play(timeline: LslTimeline, batches: readonly { values: number[]; stamps: number[] }[]) {
  const blocks: LslBlock[] = [];
  for (const batch of batches) blocks.push(...timeline.blocks(batch.values, batch.stamps, 0));
  blocks.push(...timeline.drain());
  return blocks;
}

/** ms the row's time is after its acquisition (START + index / RATE on this machine's clock). */
const lateness = (row: Out) => row.ms - lslToUnixMs(START + row.index / RATE);

function expectNeverBack(rows: readonly Out[]): void {
  for (let k = 1; k < rows.length; k++) {
    expect((rows[k] as Out).ms).toBeGreaterThanOrEqual((rows[k - 1] as Out).ms);
  }
}

describe('LSL stamps to block times', () => {
  test('values scaled per column; the first block at its stamp plus the correction', () => {
    const timeline = new LslTimeline(RATE, [1, 1e6]);
    const [block] = timeline.blocks([1, 2e-6, 3, 4e-6], [10, 10 + 1 / RATE], 0.5);
    expect(Array.from(block?.data ?? [])).toEqual([1, 2, 3, 4]);
    expect(block?.rows).toBe(2);
    expect(block?.timestamp).toBeCloseTo(lslToUnixMs(10.5), 2);
    expect([block?.lost, block?.discontinuity]).toEqual([0, false]);
  });

  test.for([1, 5, 32])(
    'chunks of %i stamped at push time, with 3 ms of jitter: no loss, regular times, never back',
    (chunk) => {
      const timeline = new LslTimeline(RATE, [1]);
      const blocks = play(timeline, pushTime({ count: 40 * RATE, chunk, jitter: 0.003, seed: chunk }));
      const rows = rowsOf(blocks);
      expect(rows.map((row) => row.index)).toEqual(Array.from({ length: 40 * RATE }, (_, i) => i));
      expect(blocks.filter((b) => b.lost > 0 || b.discontinuity)).toEqual([]);
      expectNeverBack(rows);
      // Once the fit knows the stream (5 s), each row is a fixed time after its acquisition (the
      // line runs through the middle of the chunks' stamps): within ±1 ms, to the end.
      const settled = rows.slice(5 * RATE).map(lateness);
      const mid = (Math.max(...settled) + Math.min(...settled)) / 2;
      expect(Math.max(...settled) - Math.min(...settled)).toBeLessThan(2);
      expect(Math.abs(mid - (2 + 1.5 + ((chunk - 1) / 2) * (1000 / RATE)))).toBeLessThan(1);
    },
  );

  test('a real skip of 7 samples among chunks of 5 stamped at push time: lost 7, once, and later rows at their own time', () => {
    const timeline = new LslTimeline(RATE, [1]);
    const skip = [2501, 2502, 2503, 2504, 2505, 2506, 2507];
    const blocks = play(timeline, pushTime({ count: 30 * RATE, chunk: 5, jitter: 0.002, skip }));
    expect(blocks.filter((b) => b.lost > 0).map((b) => [b.data[0], b.lost, b.discontinuity])).toEqual([
      [2508, 7, true],
    ]);
    expect(blocks.filter((b) => b.discontinuity)).toHaveLength(1);
    const rows = rowsOf(blocks);
    expectNeverBack(rows);
    const before = rows.filter((row) => row.index >= 1500 && row.index <= 2500).map(lateness);
    const after = rows.filter((row) => row.index >= 2508).map(lateness);
    // The lost rows keep their place: the rows after them are as late as those before, not 28 ms early.
    const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(Math.abs(mean(after) - mean(before))).toBeLessThan(1);
    expect(timeline.lostRows).toBe(7);
  });

  test('exact stamps: skips early in a short stream (3 at sample 100, 1 at 300 of 500) are counted, each once', () => {
    const timeline = new LslTimeline(RATE, [1]);
    const sent = Array.from({ length: 500 }, (_, i) => i).filter((i) => ![100, 101, 102, 300].includes(i));
    const batches = Array.from({ length: Math.ceil(sent.length / 10) }, (_, b) => {
      const values = sent.slice(b * 10, b * 10 + 10);
      return { values, stamps: values.map((i) => START + i / RATE) };
    });
    const blocks = play(timeline, batches);
    expect(blocks.filter((b) => b.lost > 0).map((b) => [b.data[0], b.lost, b.discontinuity])).toEqual([
      [103, 3, true],
      [301, 1, true],
    ]);
    for (const row of rowsOf(blocks)) expect(Math.abs(lateness(row))).toBeLessThan(0.001);
  });

  test('exact stamps with one stall (samples 2500-2504 stamped 100 ms late): nothing lost, no later row moved by 1 ms', () => {
    const timeline = new LslTimeline(RATE, [1]);
    const count = 20 * RATE;
    const stamps = Array.from(
      { length: count },
      (_, i) => START + i / RATE + (i >= 2500 && i < 2505 ? 0.1 : 0),
    );
    const batches = Array.from({ length: count / 10 }, (_, b) => ({
      values: Array.from({ length: 10 }, (_, k) => b * 10 + k),
      stamps: stamps.slice(b * 10, b * 10 + 10),
    }));
    const blocks = play(timeline, batches);
    expect(blocks.filter((b) => b.lost > 0 || b.discontinuity)).toEqual([]);
    const rows = rowsOf(blocks);
    expectNeverBack(rows);
    for (const row of rows) expect(Math.abs(lateness(row))).toBeLessThan(1);
  });

  test.for([
    ['one sample 5 s early, once a second', 1],
    ['five samples 5 s early, once a second', 5],
  ] as const)('stamps stepping back (%s): nothing lost, regular times', ([, width]) => {
    const timeline = new LslTimeline(RATE, [1]);
    const count = 15 * RATE;
    const stamps = Array.from(
      { length: count },
      (_, i) => START + i / RATE - (i % RATE < width && i >= RATE ? 5 : 0),
    );
    const blocks = play(timeline, [{ values: stamps.map((_, i) => i), stamps }]);
    expect(blocks.filter((b) => b.lost > 0)).toEqual([]);
    const rows = rowsOf(blocks);
    expect(rows).toHaveLength(count);
    expectNeverBack(rows);
    for (const row of rows) expect(Math.abs(lateness(row))).toBeLessThan(1);
  });

  test("the outlet's clock stepping back 5 s for good, once a second: nothing lost, the rows go on regularly", () => {
    const timeline = new LslTimeline(RATE, [1]);
    const count = 15 * RATE;
    const stamps = Array.from({ length: count }, (_, i) => START + i / RATE - 5 * Math.floor(i / RATE));
    const batches = Array.from({ length: count / 25 }, (_, b) => ({
      values: Array.from({ length: 25 }, (_, k) => b * 25 + k),
      stamps: stamps.slice(b * 25, b * 25 + 25),
    }));
    const blocks = play(timeline, batches);
    expect(blocks.filter((b) => b.lost > 0)).toEqual([]);
    const rows = rowsOf(blocks);
    expect(rows).toHaveLength(count);
    expectNeverBack(rows);
    // Each of the 14 steps is moved back onto the line.
    expect(timeline.clockSteps).toBe(14);
    for (const row of rows) expect(Math.abs(lateness(row))).toBeLessThan(1);
  });

  test('a source sending 8 times its declared rate, stamped at push time: no loss claimed, times follow its stamps', () => {
    const timeline = new LslTimeline(RATE, [1]);
    const blocks = play(timeline, pushTime({ count: 8 * 5 * RATE, chunk: 32, rate: 8 * RATE }));
    expect(blocks.filter((b) => b.lost > 0)).toEqual([]);
    const rows = rowsOf(blocks);
    expectNeverBack(rows);
    // The last row is 5 s after the first, as its stamps say (not 40 s, as its declared rate would).
    const last = rows[rows.length - 1] as Out;
    expect(last.ms - (rows[0] as Out).ms).toBeGreaterThan(4900);
    expect(last.ms - (rows[0] as Out).ms).toBeLessThan(5100);
  });

  test('a new start, a new outlet and a resumed feed: marks, and times never back', () => {
    const timeline = new LslTimeline(RATE, [1]);
    const [a] = timeline.blocks([0], [10], 0);
    timeline.restart();
    const [b] = timeline.blocks([1], [20], 0);
    expect([b?.lost, b?.discontinuity]).toEqual([0, false]);
    expect(b?.timestamp).toBeGreaterThan(a?.timestamp ?? 0);
    timeline.newOutlet();
    // A new outlet whose clock is far behind: its first block is marked and not earlier than the last.
    const [c] = timeline.blocks([2], [5], 0);
    expect([c?.lost, c?.discontinuity]).toEqual([0, true]);
    expect(c?.timestamp).toBe(b?.timestamp);
    const [d] = timeline.blocks([3], [5 + 1 / RATE], 0);
    expect(d?.discontinuity ?? false).toBe(false);
    timeline.resumed();
    const [e] = timeline.blocks([4], [5 + 2 / RATE], 0);
    expect(e?.discontinuity).toBe(true);
  });
});
