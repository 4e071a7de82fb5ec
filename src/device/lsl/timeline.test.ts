import { describe, expect, test } from 'vitest';
import { lslToUnixMs } from '../../lsl/clock.js';
import { LslTimeline } from './timeline.js';

const RATE = 100;
const stamps = (from: number, count: number, skip: readonly number[] = []) =>
  Array.from({ length: count }, (_, i) => from + i)
    .filter((i) => !skip.includes(i))
    .map((i) => 10 + i / RATE);

describe('LSL batches to blocks', () => {
  test('values scaled per column, each block stamped with its first row on the wall clock plus the correction', () => {
    const timeline = new LslTimeline(RATE, [1, 1e6]);
    const [block] = timeline.blocks([1, 2e-6, 3, 4e-6], stamps(0, 2), 0.5);
    expect(Array.from(block?.data ?? [])).toEqual([1, 2, 3, 4]);
    expect(block?.rows).toBe(2);
    expect(block?.timestamp).toBe(lslToUnixMs(10.5));
    expect(block?.lost).toBe(0);
    expect(block?.discontinuity).toBe(false);
  });

  test('a step of more than 1.5 periods splits the batch: the rows lost are counted, never filled', () => {
    const timeline = new LslTimeline(RATE, [1]);
    const s = stamps(0, 10, [3, 4, 7]);
    const blocks = timeline.blocks(
      s.map((_, i) => i),
      s,
      0,
    );
    expect(blocks.map((b) => [b.rows, b.lost, b.discontinuity])).toEqual([
      [3, 0, false],
      [2, 2, true],
      [2, 1, true],
    ]);
    expect(blocks[1]?.timestamp).toBeCloseTo(lslToUnixMs(10.05), 6);
    // Across batches too.
    const next = timeline.blocks([0], [10 + 12 / RATE], 0);
    expect(next.map((b) => [b.rows, b.lost, b.discontinuity])).toEqual([[1, 2, true]]);
  });

  test('a jitter below 1.5 periods is no loss; the blocks never go back in time', () => {
    const timeline = new LslTimeline(RATE, [1]);
    const a = timeline.blocks([0, 0], [10, 10.01], 0);
    // 0.4 periods early, then a correction 1 ms smaller.
    const b = timeline.blocks([0], [10.016], -0.001);
    expect(b[0]?.lost).toBe(0);
    expect(b[0]?.discontinuity).toBe(false);
    expect(b[0]?.timestamp).toBe((a[0]?.timestamp ?? 0) + 20);
  });

  test("a larger gap tolerance reads an outlet's jitter as no loss, a larger step still as one", () => {
    const timeline = new LslTimeline(RATE, [1], 4);
    timeline.blocks([0], [10], 0);
    // 3 periods late (jitter), then 2.5 early (back to the line), then 5 periods: lost.
    const steps = [10.03, 10.035, 10.085].map((t) => timeline.blocks([0], [t], 0)[0]);
    expect(steps.map((b) => [b?.lost, b?.discontinuity])).toEqual([
      [0, false],
      [0, false],
      [4, true],
    ]);
  });

  test('the same outlet after a broken feed: the rows it sent meanwhile are lost, the next block marked', () => {
    const timeline = new LslTimeline(RATE, [1]);
    timeline.blocks([0], [10], 0);
    timeline.resumed();
    const [block] = timeline.blocks([0, 0], [10.05, 10.06], 0);
    expect([block?.rows, block?.lost, block?.discontinuity]).toEqual([2, 4, true]);
    // Without a gap, the mark alone.
    timeline.resumed();
    const [next] = timeline.blocks([0], [10.07], 0);
    expect([next?.lost, next?.discontinuity]).toEqual([0, true]);
  });

  test('a new start after stop(): nothing before it counts, nothing is marked', () => {
    const timeline = new LslTimeline(RATE, [1]);
    const [a] = timeline.blocks([0], [10], 0);
    timeline.restart();
    const [b] = timeline.blocks([0], [20], 0);
    expect([b?.lost, b?.discontinuity]).toEqual([0, false]);
    expect(b?.timestamp).toBeGreaterThan(a?.timestamp ?? 0);
  });

  test('a new outlet marks the next block and does not compare its stamps with the old ones', () => {
    const timeline = new LslTimeline(RATE, [1]);
    timeline.blocks([0], [10], 0);
    timeline.newOutlet();
    const [block] = timeline.blocks([0], [50], 0);
    expect([block?.lost, block?.discontinuity]).toEqual([0, true]);
    const [after] = timeline.blocks([0], [50.01], 0);
    expect(after?.discontinuity).toBe(false);
  });
});
