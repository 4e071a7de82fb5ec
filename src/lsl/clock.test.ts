import { afterEach, describe, expect, it, vi } from 'vitest';
import { adoptWallClockOffset, wallClockOffsetMs, monotonicMs, wallNowMs } from '../core/wall-clock.js';
import { systemClock } from '../device/clock.js';
import { lslNow, unixMsToLsl, wallMinusLslMs } from './clock.js';

/**
 * `read()` lies between this thread's own readings of the wall clock around it
 * (`performance.timeOrigin + performance.now()`, not Date.now(): the system's clock may have been
 * slewed or stepped since the offset was taken, which the offset deliberately ignores), within 1 µs.
 */
function withinOwnReadings(read: () => number): boolean {
  const before = performance.timeOrigin + performance.now();
  const wall = read();
  const after = performance.timeOrigin + performance.now();
  return wall >= before - 0.001 && wall <= after + 0.001;
}

/** `read()` lies on the LSL clock's line, shifted by the offset, between the readings around it. */
function onLslLine(read: () => number): { below: number; above: number } {
  const before = lslNow();
  const wall = read();
  const after = lslNow();
  const lsl = unixMsToLsl(wall);
  return { below: (before - lsl) * 1000, above: (lsl - after) * 1000 };
}

describe("the service's wall clock", () => {
  const measured = wallClockOffsetMs();
  afterEach(() => {
    adoptWallClockOffset(measured);
  });

  it("is the device's timestamp clock, and lies on the LSL clock's line to the microsecond (Date.now() is whole ms: up to 1 ms early)", () => {
    for (let i = 0; i < 50; i++) {
      const { below, above } = onLslLine(() => systemClock.wallNow());
      // Neither before the reading ahead of it nor after the one behind it (1 µs for rounding).
      expect(below).toBeLessThanOrEqual(0.001);
      expect(above).toBeLessThanOrEqual(0.001);
    }
  });

  it('is the monotonic clock plus one offset, the one a worker thread adopts from its process', () => {
    expect(wallMinusLslMs()).toBe(measured);
    expect(withinOwnReadings(wallNowMs)).toBe(true);
    adoptWallClockOffset(measured + 250);
    const before = monotonicMs();
    const shifted = wallNowMs();
    const after = monotonicMs();
    expect(shifted).toBeGreaterThanOrEqual(before + measured + 250 - 0.001);
    expect(shifted).toBeLessThanOrEqual(after + measured + 250 + 0.001);
    expect(wallMinusLslMs()).toBe(measured + 250);
  });

  it('is measured on the real clocks when first read under fake timers (which fake performance and hrtime: it was hours off)', async () => {
    vi.resetModules();
    const fresh = await import('../core/wall-clock.js');
    vi.useFakeTimers();
    try {
      vi.advanceTimersByTime(5_000);
      fresh.wallNowMs();
    } finally {
      vi.useRealTimers();
    }
    expect(withinOwnReadings(fresh.wallNowMs)).toBe(true);
    // Two measurements of one constant, each within a scheduling delay (it was hours off).
    expect(Math.abs(fresh.wallClockOffsetMs() - measured)).toBeLessThan(1);
  });
});
