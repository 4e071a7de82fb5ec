/**
 * The wall clock of everything placed on the samples' time line: frames' `timestamp`, markers and
 * annotations, and the mapping onto the LSL clock. It is the machine's monotonic clock
 * (`CLOCK_MONOTONIC`, which `process.hrtime` reads in every thread and liblsl's `local_clock()`
 * reads in every process) plus one offset, measured once for the process and handed to its worker
 * threads (`adoptWallClockOffset`), so that:
 * - each frame's time maps onto the LSL clock exactly, whichever thread stamped it;
 * - times are fractional milliseconds (`Date.now()` truncates to whole ms: up to 1 ms early);
 * - a step or slew of the system's clock (NTP) while the service runs moves no timestamp against
 *   the samples; the offset is the one of the service's start (docs/lsl.md §The clock).
 * Times that are not on the samples' time line (log lines, schedules, uptime) keep `Date.now()`.
 */

// The clocks as this module found them when it loaded, for measuring the constants below: a test's
// fake timers replace `performance.now` and `process.hrtime` later, and a constant measured on them,
// kept for the life of the process, would put every later time hours off. A time is read from
// `performance.now()` as it is then, so that fake timers move it as they move every other clock.
const realHrtimeNs = process.hrtime.bigint.bind(process.hrtime);
const realPerformanceNow = performance.now.bind(performance);
const timeOrigin = performance.timeOrigin;

let offsetMs: number | undefined;
/** Wall-clock ms minus `performance.now()` in this thread (each thread counts from its own start). */
let fromPerformanceMs: number | undefined;

/** The monotonic clock, ms. */
export function monotonicMs(): number {
  return nanosecondsToMs(process.hrtime.bigint());
}

/** Whole seconds and the rest are split before the division, as liblsl does. */
function nanosecondsToMs(ns: bigint): number {
  const seconds = ns / 1_000_000_000n;
  return Number(seconds) * 1000 + Number(ns - seconds * 1_000_000_000n) / 1e6;
}

/**
 * Wall-clock ms minus monotonic ms, for this process: measured on first use, or the one adopted
 * from the thread that started this one. A worker thread takes its process's (each thread's
 * `performance.timeOrigin` is its own reading of the system clock, taken when the thread started,
 * and may differ by a millisecond under load).
 */
export function wallClockOffsetMs(): number {
  offsetMs ??= measureWallClockOffsetMs();
  return offsetMs;
}

/**
 * Measures the offset anew: `performance.timeOrigin + performance.now()` against the monotonic
 * clock.
 */
function measureWallClockOffsetMs(): number {
  return timeOrigin - monotonicMinusPerformanceMs();
}

/** In a worker thread, before any time is read: the offset of the thread that started it. */
export function adoptWallClockOffset(ms: number): void {
  offsetMs = ms;
  fromPerformanceMs = undefined;
}

/**
 * Wall-clock ms since the Unix epoch, now, on the samples' time line. Read as `performance.now()`
 * plus a constant: both count the same monotonic clock, and `performance.now()` is the cheaper
 * read (it is taken per frame and per pipe).
 */
export function wallNowMs(): number {
  return wallAtMs(performance.now());
}

/**
 * The wall-clock time of the instant this thread's `performance.now()` answered `performanceMs`.
 * A source that paces on `performance.now()` and stamps wall time takes both from one reading:
 * two readings in a row may be far apart (the first one in a thread measures the constant, 0.1 ms
 * and more; the thread may be preempted between them), and every timestamp of the run would be
 * off by that gap, for as long as it runs.
 */
export function wallAtMs(performanceMs: number): number {
  fromPerformanceMs ??= monotonicMinusPerformanceMs() + wallClockOffsetMs();
  return performanceMs + fromPerformanceMs;
}

/**
 * The monotonic clock minus `performance.now()` at one instant, on the real clocks, from the
 * tightest of a few back-to-back readings.
 */
function monotonicMinusPerformanceMs(): number {
  let best = Number.POSITIVE_INFINITY;
  let value = 0;
  for (let i = 0; i < 5; i++) {
    const a = realPerformanceNow();
    const r = nanosecondsToMs(realHrtimeNs());
    const b = realPerformanceNow();
    if (b - a < best) {
      best = b - a;
      value = r - (a + b) / 2;
    }
  }
  return value;
}
