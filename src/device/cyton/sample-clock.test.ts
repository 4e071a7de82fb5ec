import { describe, expect, test } from 'vitest';
import { SampleClock } from './sample-clock.js';

/** A deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Rows at `rate` Hz from a board whose crystal is `ppm` off, delivered in blocks of 1-8 rows with
 * a delay of 0-`jitterMs` ms (USB latency): the true time of each row, and what the clock said.
 */
function run(rate: number, ppm: number, jitterMs: number, seconds: number) {
  const clock = new SampleClock(rate);
  const random = prng(7);
  const start = 1.7e12;
  const truePeriod = (1000 / rate) * (1 + ppm * 1e-6);
  const placed: { index: number; time: number; truth: number }[] = [];
  let index = 0;
  let lastArrival = 0;
  while (index < rate * seconds) {
    const n = 1 + Math.floor(random() * 8);
    const last = index + n - 1;
    // Arrivals are in order: a block cannot arrive before the one before it.
    const arrival = Math.max(lastArrival, start + last * truePeriod + random() * jitterMs);
    lastArrival = arrival;
    const first = clock.place(index, last, arrival);
    for (let i = 0; i < n; i++)
      placed.push({
        index: index + i,
        time: first + i * clock.period,
        truth: start + (index + i) * truePeriod,
      });
    index += n;
  }
  return placed;
}

describe('SampleClock', () => {
  test('time stamps never go backwards and keep the nominal spacing within 0.1 %, whatever the USB latency', () => {
    const placed = run(250, 0, 16, 60);
    for (let i = 1; i < placed.length; i++) {
      const step = (placed[i]?.time as number) - (placed[i - 1]?.time as number);
      expect(step).toBeGreaterThanOrEqual(4 * (1 - 1e-3) - 1e-9);
      expect(step).toBeLessThanOrEqual(4 * (1 + 1e-3) + 1e-9);
    }
  });

  test('after settling, time stamps sit on the earliest arrivals: within 2 ms of the truth, not of the mean latency', () => {
    const placed = run(250, 0, 16, 60).slice(250 * 30);
    const errors = placed.map((p) => p.time - p.truth);
    expect(Math.max(...errors.map(Math.abs))).toBeLessThan(2);
  });

  test('a board crystal 80 ppm fast is followed', () => {
    const placed = run(125, 80, 10, 120).slice(125 * 60);
    const errors = placed.map((p) => p.time - p.truth);
    expect(Math.max(...errors.map(Math.abs))).toBeLessThan(2);
  });

  test('reanchor starts a new line at the next arrival', () => {
    const clock = new SampleClock(250);
    clock.place(0, 9, 1000);
    clock.reanchor();
    expect(clock.place(0, 4, 5000)).toBe(5000 - 4 * 4);
  });

  test('a burst of blocks far beyond the rows of the window (a flood of made-up or lost-counted packets) keeps at most one arrival per row of the window (was: every one of the last 2 s)', () => {
    const clock = new SampleClock(250);
    const start = 1.7e12;
    // 100 000 blocks within 1 s, each claiming a gap: 100 000 arrivals inside the 2 s window.
    for (let k = 0; k < 100_000; k++) clock.place(k * 10, k * 10, start + k / 100);
    expect(clock.remembered).toBeLessThanOrEqual(501);
  });
});
