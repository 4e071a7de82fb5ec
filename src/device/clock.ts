/**
 * The device's sense of time. Everything in the device layer that depends on time (EEG pacing,
 * motor travel, LED blinking, battery drain, settling of the electrode contact) reads it from a
 * `DeviceClock`, so tests can drive the device with fake timers and a replay or hardware device
 * can share the same pacing code.
 */
import { type PreciseTimer, preciseTimeout } from '../core/precise-timer.js';
import { joinRound } from '../core/shared-rounds.js';
import { wallAtMs, wallNowMs } from '../core/wall-clock.js';

/** An opaque handle returned by `setTimeout` (a Node timer object, or a number elsewhere). */
export type TimerHandle = object | number;

export interface DeviceClock {
  /** Monotonic time in ms (never goes back, unaffected by wall-clock changes). */
  now(): number;
  /** Wall-clock time in ms since the Unix epoch, for frame and event timestamps. */
  wallNow(): number;
  /**
   * The wall-clock time of the instant `now()` answered `now`: a run's start read once for both
   * clocks (core/wall-clock.ts `wallAtMs` says why two readings are not the same).
   */
  wallAt(now: number): number;
  /** Runs `callback` once after `ms` milliseconds. */
  setTimeout(callback: () => void, ms: number): TimerHandle;
  /**
   * Runs `callback` once at `dueAt` (a `now()` time), as close to it as the clock can: the real
   * clock within about 0.1 ms (core/precise-timer.ts). Cancelled by `clearTimeout`. Clocks
   * without it get `setTimeout` of the remaining time.
   */
  setDeadline?(callback: () => void, dueAt: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  /**
   * Runs `callback` every `ms` in the thread's round of that period (core/shared-rounds.ts), with
   * the thread's other periodic work of that period; answers the end. Clocks without it repeat a
   * `setTimeout` (see `repeat`).
   */
  every?(callback: () => void, ms: number): () => void;
}

/**
 * Runs `callback` every `ms` on `clock` until the answered function is called: in the thread's
 * shared round when the clock has one, so that the device's periodic work adds no wake-up of its
 * own to the thread's; else by a `setTimeout` set again after each call (fake and manual clocks).
 */
export function repeat(clock: DeviceClock, callback: () => void, ms: number): () => void {
  if (clock.every !== undefined) return clock.every(callback, ms);
  let handle: TimerHandle | undefined;
  let stopped = false;
  const next = (): void => {
    // Stopped meanwhile, by the callback itself included: set nothing again.
    if (stopped) return;
    handle = clock.setTimeout(() => {
      callback();
      next();
    }, ms);
  };
  next();
  return () => {
    stopped = true;
    if (handle !== undefined) clock.clearTimeout(handle);
    handle = undefined;
  };
}

/**
 * The real clock: `performance.now()` for pacing, the service's wall clock for timestamps
 * (core/wall-clock.ts: fractional ms, on the LSL clock's time line). Timers are
 * unref'd so that a device alone never keeps the process alive.
 */
export const systemClock: DeviceClock = {
  now: () => performance.now(),
  wallNow: wallNowMs,
  wallAt: wallAtMs,
  setTimeout: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return timer;
  },
  setDeadline: (callback, dueAt) => preciseTimeout(callback, dueAt, { unref: true }),
  clearTimeout: (handle) => {
    if (typeof handle === 'object' && 'cancel' in handle) (handle as PreciseTimer).cancel();
    else clearTimeout(handle as NodeJS.Timeout);
  },
  every: (callback, ms) => joinRound(ms, callback),
};

/**
 * A clock built only on `Date.now()` and the global timers, all of which vitest's fake timers
 * replace: `vi.useFakeTimers()` then `vi.advanceTimersByTime(ms)` moves the device's time.
 */
export function dateClock(): DeviceClock {
  return {
    now: () => Date.now(),
    wallNow: () => Date.now(),
    wallAt: (now) => now,
    setTimeout: (callback, ms) => setTimeout(callback, ms),
    clearTimeout: (handle) => {
      clearTimeout(handle as NodeJS.Timeout);
    },
  };
}
