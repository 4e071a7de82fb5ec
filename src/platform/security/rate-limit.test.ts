import { describe, expect, test } from 'vitest';
import { RateLimiter } from './rate-limit.js';

const LIMITS = { peer: { burst: 3, perSecond: 1 }, overall: { burst: 5, perSecond: 2 }, maxPeers: 4 };

function takes(limiter: RateLimiter, peer: string, times: number): number {
  let granted = 0;
  for (let i = 0; i < times; i += 1) if (limiter.take(peer)) granted += 1;
  return granted;
}

describe('rate limits per peer and overall', () => {
  test('a peer gets its burst, then what the rate earns back', () => {
    let now = 0;
    const limiter = new RateLimiter(LIMITS, () => now);
    expect(takes(limiter, 'a', 10)).toBe(3);
    now = 1000;
    expect(takes(limiter, 'a', 10)).toBe(1);
    now = 1500;
    expect(takes(limiter, 'a', 10)).toBe(0);
    now = 60_000;
    // Both buckets refill to their burst, never beyond it.
    expect(takes(limiter, 'a', 10)).toBe(3);
  });

  test('all peers together get the overall burst, then its rate', () => {
    let now = 0;
    const limiter = new RateLimiter(LIMITS, () => now);
    const granted = ['a', 'b', 'c', 'd', 'e', 'f'].map((p) => takes(limiter, p, 1));
    expect(granted).toEqual([1, 1, 1, 1, 1, 0]);
    now = 1000;
    expect(['g', 'h', 'i'].map((p) => takes(limiter, p, 1))).toEqual([1, 1, 0]);
  });

  test('a peer forgotten beyond maxPeers starts again from its burst; the overall limit still holds', () => {
    const limiter = new RateLimiter({ ...LIMITS, overall: { burst: 100, perSecond: 0 } }, () => 0);
    expect(takes(limiter, 'a', 5)).toBe(3);
    for (const p of ['b', 'c', 'd', 'e']) takes(limiter, p, 1);
    expect(takes(limiter, 'a', 5)).toBe(3);
  });
});
