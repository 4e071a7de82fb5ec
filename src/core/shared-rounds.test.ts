import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { activeRounds, joinRound } from './shared-rounds.js';

// A period no other code of the process uses, so that rounds left by other files change nothing.
const PERIOD = 1234;

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('joinRound', () => {
  test('jobs of one period share one timer, and the round ends with its last job', () => {
    const timersBefore = vi.getTimerCount();
    const runs: string[] = [];
    const leaveA = joinRound(PERIOD, () => runs.push('a'));
    const leaveB = joinRound(PERIOD, () => runs.push('b'));
    expect(activeRounds().get(PERIOD)).toBe(2);
    expect(vi.getTimerCount()).toBe(timersBefore + 1);

    vi.advanceTimersByTime(PERIOD);
    expect(runs).toEqual(['a', 'b']);

    leaveA();
    leaveA(); // a second call leaves nothing else
    expect(activeRounds().get(PERIOD)).toBe(1);
    vi.advanceTimersByTime(PERIOD);
    expect(runs).toEqual(['a', 'b', 'b']);

    leaveB();
    expect(activeRounds().has(PERIOD)).toBe(false);
    expect(vi.getTimerCount()).toBe(timersBefore);
    vi.advanceTimersByTime(PERIOD * 3);
    expect(runs).toEqual(['a', 'b', 'b']);
  });

  test('a job that throws stops no other, and is told as a warning', () => {
    const warnings: string[] = [];
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation((w) => {
      warnings.push(String(w));
    });
    let ran = 0;
    const leaveBad = joinRound(PERIOD, () => {
      throw new Error('deliberate');
    });
    const leaveGood = joinRound(PERIOD, () => {
      ran += 1;
    });
    vi.advanceTimersByTime(PERIOD * 2);
    leaveBad();
    leaveGood();
    warn.mockRestore();
    expect(ran).toBe(2);
    expect(warnings.length).toBe(2);
    expect(warnings[0]).toContain('deliberate');
  });

  test('a job joining after the round started runs in the same round', () => {
    const timersBefore = vi.getTimerCount();
    const runs: string[] = [];
    const leaveA = joinRound(PERIOD, () => runs.push('a'));
    vi.advanceTimersByTime(PERIOD / 2);
    const leaveB = joinRound(PERIOD, () => runs.push('b'));
    expect(vi.getTimerCount()).toBe(timersBefore + 1);
    vi.advanceTimersByTime(PERIOD / 2);
    // One wake-up for both: b's first run comes with a's, not a period after it joined.
    expect(runs).toEqual(['a', 'b']);
    leaveA();
    leaveB();
  });
});
