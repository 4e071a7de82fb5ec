/**
 * The LSL clock: liblsl's `local_clock()` is `std::chrono::steady_clock`, which on Linux is
 * `CLOCK_MONOTONIC` in seconds (since boot). Node's `process.hrtime` reads the same clock, so
 * headsetd and every liblsl program on the machine agree on it without any exchange.
 *
 * Frames carry wall-clock milliseconds on the service's one wall clock (core/wall-clock.ts): the
 * monotonic clock plus an offset fixed for the process, in every thread. So that offset maps every
 * frame's timestamp onto the LSL clock and back, exactly.
 */
import { monotonicMs, wallClockOffsetMs } from '../core/wall-clock.js';

export { wallNowMs } from '../core/wall-clock.js';

/** Seconds on the LSL clock, now. */
export function lslNow(): number {
  return monotonicMs() / 1000;
}

/** Wall-clock ms minus LSL-clock ms: the same for every thread of the service. */
export function wallMinusLslMs(): number {
  return wallClockOffsetMs();
}

/** A frame's timestamp (ms since the Unix epoch) on the LSL clock, s. */
export function unixMsToLsl(ms: number): number {
  return (ms - wallMinusLslMs()) / 1000;
}

/** A time on the LSL clock, s, as ms since the Unix epoch on this service's wall clock. */
export function lslToUnixMs(seconds: number): number {
  return seconds * 1000 + wallMinusLslMs();
}
