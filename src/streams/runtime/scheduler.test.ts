import { describe, expect, it } from 'vitest';
import { DrainScheduler } from './scheduler.js';

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
    });
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

  it('needs no new turn for a wake during a turn: the turn delivers until nothing is left', async () => {
    let queued = 3;
    let steps = 0;
    const scheduler = new DrainScheduler(() => {
      steps += 1;
      if (queued === 0) return false;
      queued -= 1;
      scheduler.wake(); // a consumer emitting downstream
      return true;
    });
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
