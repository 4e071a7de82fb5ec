/** The bounded wait for a transition: the outcome when it came in time, else "not done". */
import { describe, expect, test } from 'vitest';
import { settleWithin, within } from './settle.js';

describe('settleWithin', () => {
  test('answers the value of a promise that settles in time, undefined included', async () => {
    expect(await settleWithin(Promise.resolve(7), 60_000)).toEqual({ done: true, value: 7 });
    expect(await settleWithin(Promise.resolve(undefined), 60_000)).toEqual({ done: true, value: undefined });
    expect(await within(Promise.resolve('ok'), 60_000)).toBe('ok');
  });

  test('answers not done for a promise that is still pending when the time is up', async () => {
    const never = new Promise<number>(() => undefined);
    expect(await settleWithin(never, 1)).toEqual({ done: false });
    expect(await within(never, 1)).toBeUndefined();
  });

  test('a rejection in time is thrown to the caller', async () => {
    await expect(settleWithin(Promise.reject(new Error('refused')), 60_000)).rejects.toThrow('refused');
  });
});
