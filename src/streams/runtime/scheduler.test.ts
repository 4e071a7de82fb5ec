import { describe, expect, it } from 'vitest';
import { DrainScheduler } from './scheduler.js';

// A budget no turn reaches, for the tests of what a turn does rather than of when it yields: with
// the default 5 ms, a thread preempted inside a turn (a loaded machine) yields it to the event loop.
const NO_DEADLINE_MS = 60_000;

describe('DrainScheduler', () => {
  it('runs the first turn right after the code that woke it, before the event loop turns', async () => {
    const order: string[] = [];
    const scheduler = new DrainScheduler(() => {
      order.push('turn');
      return false;
    });
    setImmediate(() => order.push('immediate'));
    scheduler.wake();
    order.push('after wake');
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['after wake', 'turn', 'immediate']);
  });

  it("delivers a source's frame at once, inside the code that queued it, unless a turn is running or waiting", async () => {
    const order: string[] = [];
    let queued = 0;
    const scheduler = new DrainScheduler(() => {
      if (queued === 0) return false;
      queued -= 1;
      order.push('delivered');
      // A consumer emitting downstream, inside the turn: no nested turn, the running one delivers it.
      if (order.length === 1) {
        queued += 1;
        scheduler.deliverNow();
        order.push('nested call returned');
      }
      return true;
    }, NO_DEADLINE_MS);
    queued = 1;
    scheduler.deliverNow();
    order.push('after deliverNow');
    expect(order).toEqual(['delivered', 'nested call returned', 'delivered', 'after deliverNow']);
    // A turn already waiting (woken as a microtask) delivers the new frame too: none runs now.
    order.length = 0;
    scheduler.wake();
    queued = 1;
    scheduler.deliverNow();
    order.push('after deliverNow');
    await Promise.resolve();
    expect(order).toEqual(['after deliverNow', 'delivered']);
  });

  it('lets the turns run at once in one turn of the event loop take one budget: a burst into a slow consumer waits for the next', async () => {
    const delivered: number[] = [];
    let queued = 0;
    let frame = 0;
    const scheduler = new DrainScheduler(() => {
      if (queued === 0) return false;
      queued -= 1;
      const until = performance.now() + 2; // a consumer taking 2 ms a frame
      while (performance.now() < until) {
        // work
      }
      delivered.push(frame++);
      return true;
    }, 5);
    // A source emitting ten frames in one callback.
    for (let i = 0; i < 10; i++) {
      queued += 1;
      scheduler.deliverNow();
    }
    // Delivered while the budget lasted (2 ms each, 5 ms in all: at most three; fewer when the
    // thread was preempted), not all ten.
    const atOnce = delivered.length;
    expect(atOnce).toBeGreaterThanOrEqual(1);
    expect(atOnce).toBeLessThanOrEqual(3);
    // The next turns of the event loop deliver the rest, a budget each.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(delivered.length).toBeGreaterThan(atOnce);
    while (delivered.length < 10) await new Promise((resolve) => setImmediate(resolve));
    expect(delivered).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('needs no new turn for a wake during a turn: the turn delivers until nothing is left', async () => {
    let queued = 3;
    let steps = 0;
    const scheduler = new DrainScheduler(() => {
      steps += 1;
      if (queued === 0) return false;
      queued -= 1;
      scheduler.wake(); // a consumer emitting downstream
      return true;
    }, NO_DEADLINE_MS);
    scheduler.wake();
    await new Promise((resolve) => setImmediate(resolve));
    expect(queued).toBe(0);
    // Three deliveries and the step that found nothing: no second turn ran.
    expect(steps).toBe(4);
  });

  it('lets the event loop run between turns when the work never ends (a slow consumer)', async () => {
    let stop = false;
    let steps = 0;
    const scheduler = new DrainScheduler(() => {
      steps += 1;
      return !stop;
    }, 1);
    scheduler.wake();
    // Were turns chained without yielding, this timer (a source's clock) would never fire.
    await new Promise((resolve) => setTimeout(resolve, 20));
    stop = true;
    await new Promise((resolve) => setImmediate(resolve));
    scheduler.stop();
    expect(steps).toBeGreaterThan(1);
  });

  it('runs no turn after stop', async () => {
    let steps = 0;
    const scheduler = new DrainScheduler(() => {
      steps += 1;
      return false;
    });
    scheduler.stop();
    scheduler.wake();
    await new Promise((resolve) => setImmediate(resolve));
    expect(steps).toBe(0);
  });
});
