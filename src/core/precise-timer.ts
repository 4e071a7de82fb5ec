/**
 * A timer that fires at a deadline on the monotonic clock within about 0.1 ms, for clock-paced
 * sources (the signal generator, the headset's EEG acquisition).
 *
 * Node's timers run on libuv's millisecond loop clock: a `setTimeout` fires on the first loop
 * turn whose whole-millisecond time has passed the deadline, so 0 to about 1 ms late, and a frame
 * could never leave sooner than that after its last sample was due. Here a coarse timer wakes the
 * thread `COARSE_MARGIN_MS` before the deadline, and the rest is slept precisely with
 * `Atomics.wait` on a private cell (a futex wait in the kernel, to the microsecond): no core is
 * burned spinning. The precise sleep blocks this thread for at most the margin plus the coarse
 * timer's own earliness, about 1.5 ms per frame at worst, the price of sub-millisecond pacing.
 *
 * The kernel ends a futex wait a nearly constant time after it was due (0.06–0.09 ms on the 2-core
 * VMs measured, with the thread's timer slack at 1 µs), which every frame would add to its latency.
 * So each thread learns that lateness (`WakeLead`: the least of its last LEAD_SAMPLES sleeps) and
 * sleeps that much less; a wake that still comes before the deadline (the lateness was less this
 * time) spins the few microseconds left. A callback never runs before its deadline.
 *
 * A data-plane worker runs many streams on one thread, and a sleeping thread serves none of them:
 * the precise sleeps of a thread may take at most SLEEP_BUDGET of each SLEEP_WINDOW_MS (enough for
 * one stream's frames every 10 ms). Past it, a deadline is waited for with an ordinary timer
 * (up to about a millisecond late) until the next window (docs/performance.md, "Pacing in a shared worker").
 */
import { tightenTimerSlack } from './timer-slack.js';

/** How long before its deadline the coarse timer wakes. */
export const COARSE_MARGIN_MS = 1.5;

/** The first slice of the precise sleep, after which the clock must have moved. */
const PROBE_MS = 0.1;

/** The share of each window the thread may spend in precise sleeps. */
export const SLEEP_BUDGET = 0.25;
export const SLEEP_WINDOW_MS = 100;

/** How many of a thread's last precise sleeps its wake-up lead is learnt from. */
export const LEAD_SAMPLES = 16;
/** The most a sleep is shortened by: a wake later than this was load, not the timer's own lateness. */
export const LEAD_MAX_MS = 0.25;

/** A thread's last precise sleeps' lateness (ms past their end), as a ring. */
class WakeLead {
  private readonly late = new Float64Array(LEAD_SAMPLES);
  private count = 0;

  /** How much shorter than what remains to sleep: the least lateness seen lately. */
  ms(): number {
    if (this.count === 0) return 0;
    let least = Infinity;
    for (let i = 0; i < Math.min(this.count, LEAD_SAMPLES); i++) least = Math.min(least, this.late[i] ?? 0);
    return Math.min(Math.max(least, 0), LEAD_MAX_MS);
  }

  record(lateness: number): void {
    this.late[this.count % LEAD_SAMPLES] = lateness;
    this.count++;
  }
}
const leads = new WeakMap<PreciseTimerEnvironment, WakeLead>();

/**
 * Blocks until `dueAt` (at most `maxMs` from now): sleeps what remains less the thread's learnt
 * lateness, then spins what is left, if anything (microseconds).
 */
function sleepUntil(environment: PreciseTimerEnvironment, dueAt: number, maxMs: number): void {
  let lead = leads.get(environment);
  if (lead === undefined) {
    lead = new WakeLead();
    leads.set(environment, lead);
  }
  const before = environment.now();
  const remaining = Math.min(dueAt - before, maxMs);
  const ms = remaining - lead.ms();
  if (ms > 0) {
    environment.sleep(ms);
    lead.record(environment.now() - before - ms);
  }
  if (remaining === dueAt - before) environment.spinUntil(dueAt);
}

interface SleepAccount {
  windowStart: number;
  slept: number;
}
/** Per environment (one per thread in the service: the real one), the sleep spent this window. */
const accounts = new WeakMap<PreciseTimerEnvironment, SleepAccount>();

/** Whether `ms` more of precise sleep fits this window's budget; if so it is counted. */
function mayBlock(environment: PreciseTimerEnvironment, ms: number): boolean {
  const now = environment.now();
  let account = accounts.get(environment);
  if (account === undefined || now - account.windowStart >= SLEEP_WINDOW_MS) {
    account = { windowStart: now, slept: 0 };
    accounts.set(environment, account);
  }
  if (account.slept + ms > SLEEP_BUDGET * SLEEP_WINDOW_MS) return false;
  account.slept += ms;
  return true;
}

/** The parts of the environment the timer uses; tests replace them. */
export interface PreciseTimerEnvironment {
  now(): number;
  /**
   * Runs `callback` after `ms` (≤ 0: at the next turn of the event loop); an `unref` timer does
   * not keep the process alive.
   */
  setTimeout(callback: () => void, ms: number, unref: boolean): unknown;
  clearTimeout(handle: unknown): void;
  /** Blocks the thread for `ms` milliseconds (fractional). */
  sleep(ms: number): void;
  /** Returns once `now()` reaches `at` (a busy wait: for microseconds only). */
  spinUntil(at: number): void;
}

const cell = new Int32Array(new SharedArrayBuffer(4));
/** Clock readings a spin may take: many times LEAD_MAX_MS of them (one takes 40–170 ns). */
const SPIN_MAX_READS = 100_000;

export const realTimerEnvironment: PreciseTimerEnvironment = {
  now: () => performance.now(),
  setTimeout: (callback, ms, unref) => {
    // setTimeout(0) waits a whole millisecond in Node; the next loop turn is what is meant.
    if (ms <= 0) {
      const immediate = setImmediate(callback);
      if (unref) immediate.unref();
      return { immediate };
    }
    const timeout = setTimeout(callback, ms);
    if (unref) timeout.unref();
    return { timeout };
  },
  clearTimeout: (handle) => {
    const { immediate, timeout } = handle as { immediate?: NodeJS.Immediate; timeout?: NodeJS.Timeout };
    if (immediate !== undefined) clearImmediate(immediate);
    if (timeout !== undefined) clearTimeout(timeout);
  },
  sleep: (ms) => {
    // The kernel's default slack would let the wait end up to 50 µs late (timer-slack.ts).
    tightenTimerSlack();
    // Nothing ever notifies the cell: the wait always times out, after `ms`.
    Atomics.wait(cell, 0, 0, ms);
  },
  spinUntil: (at) => {
    // At most the lead (≤ LEAD_MAX_MS) on a real clock; the bound only guards a clock that is not.
    for (let i = 0; i < SPIN_MAX_READS && performance.now() < at; i++) {
      // The wake came microseconds early: the frame may not leave before its deadline.
    }
  },
};

/**
 * Whether `environment` is the real one on the real clock, so that the probe sleep can be
 * skipped: it is a wake-up of its own per deadline (a deadline every 12 ms cost 120–138 µs of CPU
 * with it, 83–110 µs without, on a 2-core VM). Fake timers (vitest's default set) replace
 * `performance.now`, which then is no longer the prototype's, and the probe decides as before.
 */
function knownReal(environment: PreciseTimerEnvironment): boolean {
  return environment === realTimerEnvironment && performance.now === Performance.prototype.now;
}

export interface PreciseTimer {
  cancel(): void;
}

export interface PreciseTimeoutOptions {
  /** A pending timer alone does not keep the process alive (the device's timers). */
  unref?: boolean;
  environment?: PreciseTimerEnvironment;
}

/** Calls `callback` once at `dueAt` (a `now()` time in ms). */
export function preciseTimeout(
  callback: () => void,
  dueAt: number,
  { unref = false, environment = realTimerEnvironment }: PreciseTimeoutOptions = {},
): PreciseTimer {
  let handle: unknown;
  let cancelled = false;
  const finish = (): void => {
    handle = undefined;
    if (cancelled) return;
    let remaining = dueAt - environment.now();
    if (remaining > 0 && !mayBlock(environment, remaining)) {
      // Over this thread's budget of blocking: an ordinary timer, a little late, blocks nothing.
      handle = environment.setTimeout(
        () => {
          handle = undefined;
          if (!cancelled) callback();
        },
        remaining,
        unref,
      );
      return;
    }
    if (remaining > 0) {
      if (!knownReal(environment)) {
        const before = environment.now();
        environment.sleep(Math.min(remaining, PROBE_MS));
        if (environment.now() === before) {
          // The clock did not move while the thread slept: it is not real time (a test's fake
          // clock), so wait for it on its own timers instead.
          handle = environment.setTimeout(finish, remaining, unref);
          return;
        }
        remaining = dueAt - environment.now();
      }
      if (remaining > 0) sleepUntil(environment, dueAt, COARSE_MARGIN_MS * 2);
    }
    callback();
  };
  handle = environment.setTimeout(finish, dueAt - COARSE_MARGIN_MS - environment.now(), unref);
  return {
    cancel() {
      cancelled = true;
      if (handle !== undefined) environment.clearTimeout(handle);
      handle = undefined;
    },
  };
}
