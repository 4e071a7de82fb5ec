import { describe, expect, test } from 'vitest';
import { RestartTracker, restartPolicyOf, SUPERVISION } from './supervisor.js';

function tracker(policy: 'no' | 'on-failure' | 'always') {
  let now = 0;
  const t = new RestartTracker(policy, () => now);
  return {
    t,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('RestartTracker', () => {
  test('on-failure: exponential backoff, then the crash-loop limit', () => {
    const { t, advance } = tracker('on-failure');
    const delays: number[] = [];
    for (let i = 0; i < SUPERVISION.maxFailures - 1; i++) {
      const decision = t.onEnd('failure');
      if (!decision.restart) throw new Error('expected a restart');
      delays.push(decision.delayMs);
      advance(decision.delayMs);
    }
    expect(delays).toEqual([250, 500, 1000, 2000]);
    expect(t.onEnd('failure')).toEqual({ restart: false, reason: 'crash-loop' });
  });

  test('failures older than the window are forgotten', () => {
    const { t, advance } = tracker('on-failure');
    for (let i = 0; i < SUPERVISION.maxFailures - 1; i++) t.onEnd('failure');
    advance(SUPERVISION.windowMs + 1);
    expect(t.onEnd('failure')).toEqual({ restart: true, delayMs: 250 });
  });

  test('the backoff is capped', () => {
    const { t } = tracker('always');
    // Many failures far apart in time never exceed the cap; here only the cap itself is checked.
    expect(Math.min(SUPERVISION.maxBackoffMs, 250 * 2 ** 10)).toBe(SUPERVISION.maxBackoffMs);
    expect(t.onEnd('failure')).toEqual({ restart: true, delayMs: 250 });
  });

  test('policy no never restarts; a clean end restarts only under always; fatal never', () => {
    expect(tracker('no').t.onEnd('failure')).toEqual({ restart: false, reason: 'policy' });
    expect(tracker('on-failure').t.onEnd('ended')).toEqual({ restart: false, reason: 'policy' });
    expect(tracker('always').t.onEnd('ended')).toEqual({ restart: true, delayMs: 250 });
    expect(tracker('always').t.onEnd('fatal')).toEqual({ restart: false, reason: 'fatal' });
  });

  test('restartPolicyOf defaults to on-failure', () => {
    expect(restartPolicyOf(undefined)).toBe('on-failure');
    expect(restartPolicyOf({ restart: 'no' })).toBe('no');
    expect(restartPolicyOf({ restart: 'sometimes' })).toBe('on-failure');
  });
});
