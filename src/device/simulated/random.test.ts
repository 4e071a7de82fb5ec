import { describe, expect, it, vi } from 'vitest';

type RandomModule = typeof import('./random.js');

/** A fresh copy of the module: its normal table as a start leaves it. */
async function freshModule(): Promise<RandomModule> {
  vi.resetModules();
  return import('./random.js');
}

describe('the fast normal table', () => {
  it('is not computed when the module loads: a draw before prepareFastNormal is NaN', async () => {
    const { Random } = await freshModule();
    expect(new Random(3, 'eeg').fastNormal()).toBeNaN();
  });

  it('holds unit-variance quantiles, odd about the median, once prepared', async () => {
    const { Random, prepareFastNormal } = await freshModule();
    prepareFastNormal();
    prepareFastNormal(); // a second call leaves the table as it is
    const random = new Random(5, 'eeg');
    const draws = Array.from({ length: 400_000 }, () => random.fastNormal());
    const mean = draws.reduce((sum, x) => sum + x, 0) / draws.length;
    const variance = draws.reduce((sum, x) => sum + (x - mean) ** 2, 0) / draws.length;
    expect(Math.abs(mean)).toBeLessThan(0.01);
    expect(variance).toBeCloseTo(1, 2);
    // Every value is the negation of another (the table is odd), and none is beyond ±4.5 σ.
    const seen = new Set(draws);
    let unmatched = 0;
    for (const x of seen) if (!seen.has(-x)) unmatched++;
    expect(unmatched / seen.size).toBeLessThan(0.01);
    expect(draws.reduce((max, x) => Math.max(max, Math.abs(x)), 0)).toBeLessThan(4.5);
  });
});
