import { describe, expect, it } from 'vitest';
import { MixedRadixFft, smallFactors } from './mixed-radix-fft.js';

function noise(n: number, seed: number): Float64Array {
  let s = seed >>> 0 || 1;
  return Float64Array.from({ length: n }, () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 31 - 1;
  });
}

describe('MixedRadixFft', () => {
  it('factors a length into fours first, then primes up to 13, and refuses a larger prime', () => {
    expect(smallFactors(250)).toEqual([2, 5, 5, 5]);
    expect(smallFactors(1000)).toEqual([4, 2, 5, 5, 5]);
    expect(smallFactors(2 * 11 * 13)).toEqual([2, 11, 13]);
    expect(smallFactors(17)).toBeUndefined();
    expect(() => new MixedRadixFft(2 * 17)).toThrow(/prime factor above 13/);
  });

  it('equals the direct DFT of complex input for every kind of pass', () => {
    for (const n of [2, 3, 4, 5, 6, 10, 16, 45, 250, 286, 343, 600]) {
      const xr = noise(n, n);
      const xi = noise(n, n + 7);
      const re = Float64Array.from(xr);
      const im = Float64Array.from(xi);
      new MixedRadixFft(n).transform(re, im);
      for (let k = 0; k < n; k++) {
        let er = 0;
        let ei = 0;
        for (let j = 0; j < n; j++) {
          const angle = (-2 * Math.PI * ((j * k) % n)) / n;
          er += xr[j]! * Math.cos(angle) - xi[j]! * Math.sin(angle);
          ei += xr[j]! * Math.sin(angle) + xi[j]! * Math.cos(angle);
        }
        expect(Math.abs(re[k]! - er), `n=${n} k=${k}`).toBeLessThan(1e-12 * n);
        expect(Math.abs(im[k]! - ei), `n=${n} k=${k}`).toBeLessThan(1e-12 * n);
      }
    }
  });
});
