/**
 * A `DeviceClock` moved by hand: time stands still until `advance` moves it, firing the timers that
 * fall due in order, each with the clock set to its due time. It lets tests (and offline tools)
 * play a recording faster than real time through the very pacing code that runs in real time,
 * while the rest of the process (sockets, worker threads, real timers) keeps the real clock.
 */
import type { DeviceClock, TimerHandle } from '../clock.js';

interface PendingTimer {
  readonly id: number;
  readonly due: number;
  readonly callback: () => void;
}

export class ManualClock implements DeviceClock {
  private time: number;
  private readonly wallOrigin: number;
  private readonly timers = new Map<number, PendingTimer>();
  private nextId = 1;

  /**
   * @param wallOrigin wall-clock time (ms since the epoch) at monotonic time 0; default: now.
   * @param start monotonic time to start at (ms).
   */
  constructor(wallOrigin = Date.now(), start = 0) {
    this.wallOrigin = wallOrigin;
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  wallNow(): number {
    return this.wallAt(this.time);
  }

  wallAt(now: number): number {
    return this.wallOrigin + now;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.timers.set(id, { id, due: this.time + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    if (typeof handle === 'number') this.timers.delete(handle);
  }

  /** Timers waiting to fire. */
  pending(): number {
    return this.timers.size;
  }

  /**
   * Moves time forward by `ms`, firing every timer due on the way (earliest first; equal due times
   * in the order they were set), including timers those callbacks set within the interval.
   */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let next: PendingTimer | undefined;
      for (const timer of this.timers.values()) {
        if (timer.due <= end && (next === undefined || timer.due < next.due)) next = timer;
      }
      if (next === undefined) break;
      this.timers.delete(next.id);
      this.time = Math.max(this.time, next.due);
      next.callback();
    }
    this.time = end;
  }
}
