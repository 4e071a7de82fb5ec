import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settleWithin } from './deadline.js';

describe('settleWithin', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers the value of a promise that settles in time and leaves no timer behind', async () => {
    const answer = settleWithin(Promise.resolve(7), 1000);
    await expect(answer).resolves.toEqual({ done: true, value: 7 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('answers done: false once the time has run out', async () => {
    const answer = settleWithin(new Promise(() => undefined), 1000);
    await vi.advanceTimersByTimeAsync(999);
    let ended = false;
    void answer.then(() => (ended = true));
    await Promise.resolve();
    expect(ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(answer).resolves.toEqual({ done: false });
  });

  it('passes a rejection within the time through', async () => {
    await expect(settleWithin(Promise.reject(new Error('refused')), 1000)).rejects.toThrow('refused');
    expect(vi.getTimerCount()).toBe(0);
  });
});
