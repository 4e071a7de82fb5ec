/**
 * The calling thread's timer slack, tightened to a microsecond on Linux.
 *
 * Linux lets a sleeping thread's timers expire up to its "timer slack" late (50 µs by default)
 * so that wake-ups can be grouped. The precise sleeps of src/core/precise-timer.ts exist to
 * release a frame when its last sample is due; measured on a 2-core VM, a 1–4 ms `Atomics.wait`
 * woke 0.10 ms late at p50 with the default slack and 0.05 ms late with 1 µs
 * (docs/performance-areas.md §End-to-end latency). A thread may set its own slack without any
 * privilege through /proc/<its thread id>/timerslack_ns (Linux ≥ 4.6); it affects only that
 * thread's timers (and those of threads it starts later, which inherit it), adds no wake-up, and
 * is set once per thread, on its first precise sleep.
 * Anywhere it cannot be set (not Linux, /proc not mounted, an older kernel) nothing changes.
 */
import { readlinkSync, writeFileSync } from 'node:fs';

/** The slack asked for, in nanoseconds. */
export const TIMER_SLACK_NS = 1000;

let tightened = false;

/** Sets this thread's timer slack to TIMER_SLACK_NS once; true when it is set now or was before. */
export function tightenTimerSlack(): boolean {
  if (tightened) return true;
  tightened = true;
  if (process.platform !== 'linux') return false;
  try {
    // "<pid>/task/<tid>": the thread's own entry, writable by the thread itself.
    const tid = readlinkSync('/proc/thread-self').split('/').pop();
    writeFileSync(`/proc/${tid}/timerslack_ns`, String(TIMER_SLACK_NS));
    return true;
  } catch {
    return false;
  }
}
