import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { StallWatchdog } from './stall-watchdog.js';

describe('StallWatchdog', () => {
  let now = 0;
  let armed = true;
  let stalls: number[] = [];
  let dog: StallWatchdog;

  /** Advances this clock and the timers together, one millisecond at a time. */
  const pass = (ms: number): void => {
    for (let i = 0; i < ms; i++) {
      now++;
      vi.advanceTimersByTime(1);
    }
  };

  beforeEach(() => {
    vi.useFakeTimers();
    now = 0;
    armed = true;
    stalls = [];
    dog = new StallWatchdog(
      400,
      () => armed,
      (silent) => stalls.push(silent),
      () => now,
    );
    dog.start();
    dog.heard();
  });

  afterEach(() => {
    dog.stop();
    vi.useRealTimers();
  });

  test('packets keep it quiet; a silence of the timeout is one stall, then one per timeout', () => {
    for (let i = 0; i < 20; i++) {
      pass(100);
      dog.heard();
    }
    expect(stalls).toEqual([]);
    pass(500);
    expect(stalls).toHaveLength(1);
    expect(stalls[0]).toBeGreaterThanOrEqual(400);
    expect(stalls[0]).toBeLessThanOrEqual(500);
    pass(400);
    expect(stalls).toHaveLength(2);
  });

  test('disarmed (stopped, paused) it never fires; armed again, the count starts afresh', () => {
    armed = false;
    pass(5000);
    expect(stalls).toEqual([]);
    armed = true;
    pass(350);
    expect(stalls).toEqual([]);
    pass(300);
    expect(stalls).toHaveLength(1);
  });

  test('a tick that comes late (this process held up) does not blame the board', () => {
    now += 3000;
    pass(200);
    expect(stalls).toEqual([]);
    dog.heard();
    pass(300);
    expect(stalls).toEqual([]);
  });
});
