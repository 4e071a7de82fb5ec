/**
 * The LSL clock: liblsl's `local_clock()` is `std::chrono::steady_clock`, which on Linux is
 * `CLOCK_MONOTONIC` in seconds (since boot). Node's `process.hrtime` reads the same clock, so
 * headsetd and every liblsl program on the machine agree on it without any exchange.
 *
 * Frames carry wall-clock milliseconds (`performance.timeOrigin + performance.now()`, or a wall time
 * taken once at the start of an acquisition and advanced by the monotonic clock). Both are the
 * monotonic clock plus an offset fixed for the thread, so one offset, taken once, maps every frame's
 * timestamp onto the LSL clock and back.
 */

/** Seconds on the LSL clock, now. Whole seconds and the rest are split before the division, as liblsl does. */
export function lslNow(): number {
  const ns = process.hrtime.bigint();
  const seconds = ns / 1_000_000_000n;
  return Number(seconds) + Number(ns - seconds * 1_000_000_000n) / 1e9;
}

/** Wall-clock ms (`performance.timeOrigin + performance.now()`) now. */
export function wallNowMs(): number {
  return performance.timeOrigin + performance.now();
}

let offsetMs: number | undefined;

/**
 * Wall-clock ms minus LSL-clock ms for this thread. `performance.now()` is read from the same
 * monotonic clock as hrtime, so the difference is constant; it is measured once, on the tightest of
 * a few back-to-back readings.
 */
export function wallMinusLslMs(): number {
  if (offsetMs !== undefined) return offsetMs;
  let best = Number.POSITIVE_INFINITY;
  let value = 0;
  for (let i = 0; i < 5; i++) {
    const a = performance.now();
    const lsl = lslNow();
    const b = performance.now();
    if (b - a < best) {
      best = b - a;
      value = performance.timeOrigin + (a + b) / 2 - lsl * 1000;
    }
  }
  offsetMs = value;
  return value;
}

/** A frame's timestamp (ms since the Unix epoch) on the LSL clock, s. */
export function unixMsToLsl(ms: number): number {
  return (ms - wallMinusLslMs()) / 1000;
}

/** A time on the LSL clock, s, as ms since the Unix epoch on this service's wall clock. */
export function lslToUnixMs(seconds: number): number {
  return seconds * 1000 + wallMinusLslMs();
}
