/**
 * The precise timer's mechanism, on a fake environment (no wall-clock assertion: how close it
 * lands on real hardware is measured by the benchmarks): a coarse timer to the margin before the
 * deadline, then a precise sleep of exactly what remains.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  COARSE_MARGIN_MS,
  LEAD_MAX_MS,
  type PreciseTimerEnvironment,
  preciseTimeout,
  realTimerEnvironment,
  SLEEP_BUDGET,
  SLEEP_WINDOW_MS,
} from './precise-timer.js';

/** `lateness(ms)`: how long after its end a sleep of `ms` wakes (the kernel's timer). */
function fakeEnvironment(lateness: (ms: number) => number = () => 0) {
  let time = 100;
  const timers: { callback: () => void; at: number; ms: number }[] = [];
  const sleeps: number[] = [];
  const spins: number[] = [];
  const environment: PreciseTimerEnvironment = {
    now: () => time,
    setTimeout: (callback, ms) => {
      const timer = { callback, at: time + Math.max(0, ms), ms };
      timers.push(timer);
      return timer;
    },
    clearTimeout: (handle) => {
      timers.splice(timers.indexOf(handle as (typeof timers)[number]), 1);
    },
    sleep: (ms) => {
      sleeps.push(ms);
      time += ms + lateness(ms);
    },
    spinUntil: (at) => {
      spins.push(Math.max(0, at - time));
      time = Math.max(time, at);
    },
  };
  /** Fires the pending coarse timer, `lateness` ms after its time (as libuv would). */
  const fire = (lateness: number) => {
    const timer = timers.shift();
    if (timer === undefined) throw new Error('no timer pending');
    time = timer.at + lateness;
    timer.callback();
  };
  return { environment, timers, sleeps, spins, fire, now: () => time };
}

describe('preciseTimeout', () => {
  it('blocks its thread at most its budget per window; past it, an ordinary timer waits instead', () => {
    const fake = fakeEnvironment();
    // Many deadlines in one window, each woken at the margin before it (as many streams would).
    let fired = 0;
    const deadlines = 40;
    for (let k = 0; k < deadlines; k++) {
      preciseTimeout(() => fired++, 110 + k * 2, { environment: fake.environment });
    }
    const budget = SLEEP_BUDGET * SLEEP_WINDOW_MS;
    for (let k = 0; k < deadlines; k++) {
      fake.timers.sort((a, b) => a.at - b.at);
      fake.fire(0);
      // An ordinary timer set for the rest fires too, as libuv would.
      while (fake.timers.length > deadlines - k - 1) {
        fake.timers.sort((a, b) => a.at - b.at);
        fake.fire(0);
      }
    }
    expect(fired).toBe(deadlines);
    const slept = fake.sleeps.reduce((sum, ms) => sum + ms, 0);
    expect(slept).toBeLessThanOrEqual(budget + 1e-9);
    expect(slept).toBeGreaterThan(budget - 2 * COARSE_MARGIN_MS);
  });

  it('sets a coarse timer to the margin before the deadline, then sleeps exactly the rest', () => {
    const fake = fakeEnvironment();
    let firedAt: number | undefined;
    preciseTimeout(() => (firedAt = fake.now()), 110, { environment: fake.environment });
    expect(fake.timers[0]?.ms).toBeCloseTo(10 - COARSE_MARGIN_MS, 9);
    fake.fire(0.7); // a coarse timer 0.7 ms late, as Node's millisecond loop clock makes it
    expect(fake.sleeps.reduce((sum, ms) => sum + ms, 0)).toBeCloseTo(COARSE_MARGIN_MS - 0.7, 9);
    expect(firedAt).toBeCloseTo(110, 9);
  });

  it('does not sleep when the coarse timer was already late past the deadline', () => {
    const fake = fakeEnvironment();
    let fired = 0;
    preciseTimeout(() => fired++, 105, { environment: fake.environment });
    fake.fire(COARSE_MARGIN_MS + 2);
    expect(fake.sleeps).toEqual([]);
    expect(fired).toBe(1);
  });

  it('runs at the next loop turn (not a millisecond later) when the deadline is within the margin', () => {
    const fake = fakeEnvironment();
    preciseTimeout(() => undefined, 100.4, { environment: fake.environment });
    expect(fake.timers[0]?.ms).toBeLessThanOrEqual(0);
  });

  it("waits on the clock's own timers when the clock does not move while the thread sleeps (fake timers)", () => {
    const fake = fakeEnvironment();
    fake.environment.sleep = () => undefined; // a clock that real time does not move
    let firedAt: number | undefined;
    preciseTimeout(() => (firedAt = fake.now()), 110, { environment: fake.environment });
    fake.fire(0);
    expect(firedAt).toBeUndefined();
    expect(fake.timers[0]?.ms).toBeCloseTo(COARSE_MARGIN_MS, 9);
    fake.fire(0);
    expect(firedAt).toBe(110);
  });

  it("learns the kernel's lateness: sleeps that much less, and calls back at the deadline, never before", () => {
    const late = [0.07, 0.08, 0.07, 0.03, 0.07];
    let k = 0;
    const fake = fakeEnvironment(() => late[k] ?? 0.07);
    const firedAt: number[] = [];
    for (k = 0; k < late.length; k++) {
      const due = fake.now() + 10;
      preciseTimeout(() => firedAt.push(fake.now() - due), due, { environment: fake.environment });
      fake.fire(0);
    }
    // The first sleep knows no lateness: it ends 0.07 late. Then it sleeps 0.07 less and lands on
    // the deadline; a wake that comes earlier than learnt (0.03 late) spins the 0.04 left.
    expect(firedAt[0]).toBeCloseTo(0.07, 9);
    expect(firedAt[1]).toBeCloseTo(0.01, 9);
    expect(firedAt[2]).toBeCloseTo(0, 9);
    expect(firedAt[3]).toBeCloseTo(0, 9);
    expect(fake.spins[3]).toBeCloseTo(0.04, 9);
    // The least of the recent ones is the lead: 0.03 now, so the next lands 0.04 late.
    expect(firedAt[4]).toBeCloseTo(0.04, 9);
    expect(Math.min(...firedAt)).toBeGreaterThanOrEqual(0);
  });

  it('shortens a sleep by at most LEAD_MAX_MS, however late the wakes come (a loaded machine)', () => {
    // (The fake clock's first short sleep, its probe that the clock moves, wakes on time.)
    const fake = fakeEnvironment((ms) => (ms < 0.2 ? 0 : 5));
    for (let k = 0; k < 3; k++) {
      const due = fake.now() + 10;
      preciseTimeout(() => undefined, due, { environment: fake.environment });
      fake.fire(0);
    }
    // What remained after the 0.1 ms probe, less the lead.
    expect(COARSE_MARGIN_MS - 0.1 - (fake.sleeps.at(-1) ?? NaN)).toBeCloseTo(LEAD_MAX_MS, 9);
  });

  it('never calls back once cancelled', () => {
    const fake = fakeEnvironment();
    let fired = 0;
    const timer = preciseTimeout(() => fired++, 120, { environment: fake.environment });
    timer.cancel();
    expect(fake.timers).toHaveLength(0);
    expect(fired).toBe(0);
  });

  it('sleeps for real: the callback never runs before its deadline on the real clock', async () => {
    const due = performance.now() + 5;
    const at = await new Promise<number>((resolve) => {
      preciseTimeout(() => {
        resolve(performance.now());
      }, due);
    });
    expect(at).toBeGreaterThanOrEqual(due);
  });

  it('on the real clock, sleeps once per deadline (no probe sleep, a wake-up of its own)', async () => {
    const sleep = vi.spyOn(realTimerEnvironment, 'sleep');
    try {
      const due = performance.now() + 5;
      await new Promise<void>((resolve) => {
        preciseTimeout(resolve, due);
      });
      // One precise sleep of what remained after the coarse timer (none if it woke late).
      expect(sleep.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      sleep.mockRestore();
    }
  });
});
