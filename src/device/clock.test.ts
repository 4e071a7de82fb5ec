import { afterEach, describe, expect, test, vi } from 'vitest';
import { activeRounds, ROUND_MS } from '../core/shared-rounds.js';
import { dateClock, repeat, systemClock } from './clock.js';
import { createSimulatedHeadset } from './simulated/simulated-headset.js';

afterEach(() => {
  vi.useRealTimers();
});

function jobsInRound(): number {
  return activeRounds().get(ROUND_MS) ?? 0;
}

describe('repeat', () => {
  test('on a clock without rounds, a timeout set again after each call, until stopped', () => {
    vi.useFakeTimers();
    const clock = dateClock();
    let calls = 0;
    const stop = repeat(clock, () => (calls += 1), 100);
    vi.advanceTimersByTime(350);
    expect(calls).toBe(3);
    stop();
    vi.advanceTimersByTime(1000);
    expect(calls).toBe(3);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a callback that stops its own repetition is not set again', () => {
    vi.useFakeTimers();
    let calls = 0;
    const stop = repeat(
      dateClock(),
      () => {
        calls += 1;
        stop();
      },
      100,
    );
    vi.advanceTimersByTime(500);
    expect(calls).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  test("on the system clock, a job of the thread's round", () => {
    const before = jobsInRound();
    const stop = repeat(systemClock, () => undefined, ROUND_MS);
    expect(jobsInRound()).toBe(before + 1);
    stop();
    expect(jobsInRound()).toBe(before);
  });
});

describe("the simulated headset's housekeeping", () => {
  test("runs in the API thread's round on the system clock, and leaves it when the headset closes", async () => {
    const periodsBefore = new Set(activeRounds().keys());
    const before = jobsInRound();
    const headset = createSimulatedHeadset();
    try {
      expect(jobsInRound()).toBe(before + 1);
      // No timer of a period of its own.
      expect([...activeRounds().keys()].filter((p) => !periodsBefore.has(p) && p !== ROUND_MS)).toEqual([]);
    } finally {
      await headset.close();
    }
    expect(jobsInRound()).toBe(before);
  });
});
