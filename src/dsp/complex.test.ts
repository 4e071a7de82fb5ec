import { describe, expect, it } from 'vitest';
import { loadNumeric } from '../../test/fixtures/dsp/golden.js';
import { abs, prod } from './complex.js';
import { fma, powInt } from './fma.js';

const numeric = loadNumeric();

describe('numpy-rounding helpers', () => {
  it('fma is correctly rounded (exact a·b+c from Python fractions), including heavy cancellation', () => {
    for (const [a, b, c, expected] of numeric.fma) {
      expect(fma(a, b, c), `${a} * ${b} + ${c}`).toBe(expected);
    }
  });
  it('powInt equals Python float ** int (glibc pow) except where glibc rounds within its sub-ulp error', () => {
    let differ = 0;
    for (const [x, n, expected] of numeric.pow) {
      const got = powInt(x, n);
      if (got !== expected) differ++;
      expect(Math.abs(got - expected) / expected, `${x} ** ${n}`).toBeLessThanOrEqual(Number.EPSILON);
    }
    expect(differ).toBeLessThanOrEqual(2); // 1 of 200 on the committed vectors
  });
  it('prod reproduces numpy.prod over complex values bit for bit', () => {
    for (const { values, prod: expected } of numeric.prod) {
      const p = prod(values.map(([re, im]) => ({ re, im })));
      expect([p.re, p.im]).toEqual(expected);
    }
  });
  it('abs reproduces numpy.abs on complex arrays bit for bit', () => {
    for (const [re, im, expected] of numeric.abs) expect(abs({ re, im })).toBe(expected);
  });
});
