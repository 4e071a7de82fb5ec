import { describe, expect, it } from 'vitest';
import { HeadsetdError } from '../core/errors.js';
import { signalWithin } from './signal-within.js';

/** A manager whose signal's outcome the test settles by hand. */
function manager() {
  let settle: (failure: HeadsetdError | undefined) => void = () => undefined;
  const outcome = new Promise<HeadsetdError | undefined>((resolve) => {
    settle = resolve;
  });
  return {
    manager: { signal: () => ({ outcome }) },
    settle: (f: HeadsetdError | undefined) => {
      settle(f);
    },
  };
}

describe('signalWithin', () => {
  it('answers done when the transition ends within the bound', async () => {
    const m = manager();
    m.settle(undefined);
    await expect(signalWithin(m.manager, 'id', 'start', 1000, () => undefined)).resolves.toBe('done');
  });

  it('throws the failure of a transition that ends within the bound', async () => {
    const m = manager();
    const failure = new HeadsetdError('transition_failed', 'node gen could not start');
    m.settle(failure);
    await expect(signalWithin(m.manager, 'id', 'start', 1000, () => undefined)).rejects.toBe(failure);
  });

  it('answers under way past the bound, and hands a later failure on', async () => {
    const m = manager();
    const late: Error[] = [];
    await expect(signalWithin(m.manager, 'id', 'start', 5, (f) => late.push(f))).resolves.toBe('under_way');
    const failure = new HeadsetdError('transition_failed', 'node gen crashed while starting');
    m.settle(failure);
    await Promise.resolve();
    await Promise.resolve();
    expect(late).toEqual([failure]);
  });

  it('hands on nothing when the transition under way ends well', async () => {
    const m = manager();
    const late: Error[] = [];
    await signalWithin(m.manager, 'id', 'start', 5, (f) => late.push(f));
    m.settle(undefined);
    await Promise.resolve();
    await Promise.resolve();
    expect(late).toEqual([]);
  });
});
