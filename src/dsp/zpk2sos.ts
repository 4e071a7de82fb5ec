/**
 * Zeros/poles/gain → second-order sections, a line-by-line port of scipy 1.10's
 * `scipy.signal.zpk2sos(z, p, k, pairing='nearest')` for digital filters (with `_cplxreal`,
 * `_nearest_real_complex_idx` and `_single_zpksos`), so that sections come out in scipy's order,
 * paired the same way, with the whole gain in the first section. Keeping scipy's arrangement (not
 * only its transfer function) is what makes `sosfilt` outputs agree to rounding: the intermediate
 * signal levels between sections depend on the pairing and order.
 */

import { abs, add, type Complex, complex, conj, div, isReal, mul, neg, sub } from './complex.js';
import type { Sos } from './sos.js';

/** scipy's default tolerance in `_cplxreal`: 100 × float64 epsilon. */
const CPLXREAL_TOL = 100 * Number.EPSILON;

/** Stable sort of values by a list of keys (the first key primary), like numpy.lexsort. */
function lexsorted<T>(values: readonly T[], ...keys: ((v: T) => number)[]): T[] {
  const indexed = values.map((v, i) => ({ v, i }));
  indexed.sort((a, b) => {
    for (const key of keys) {
      const d = key(a.v) - key(b.v);
      if (d !== 0) return d;
    }
    return a.i - b.i;
  });
  return indexed.map((e) => e.v);
}

/**
 * scipy's `_cplxreal`: splits roots into one representative (positive imaginary part, the average
 * of the pair) per complex-conjugate pair, and the real roots; both sorted by real part.
 */
function cplxreal(z: readonly Complex[]): { zc: Complex[]; zr: number[] } {
  if (z.length === 0) return { zc: [], zr: [] };
  const sorted = lexsorted(
    z,
    (v) => v.re,
    (v) => Math.abs(v.im),
  );
  const realMask = sorted.map((v) => Math.abs(v.im) <= CPLXREAL_TOL * abs(v));
  const zr = sorted.filter((_, i) => realMask[i]).map((v) => v.re);
  const rest = sorted.filter((_, i) => !realMask[i]);
  const zp = rest.filter((v) => v.im > 0);
  const zn = rest.filter((v) => v.im < 0);
  if (zp.length !== zn.length) {
    throw new RangeError('zpk2sos: a complex root has no matching conjugate');
  }
  // Within runs of (nearly) equal real parts, order both halves by |imag| so that pairs line up.
  let start = 0;
  while (start < zp.length) {
    let stop = start + 1;
    while (
      stop < zp.length &&
      (zp[stop] as Complex).re - (zp[stop - 1] as Complex).re <= CPLXREAL_TOL * abs(zp[stop - 1] as Complex)
    ) {
      stop++;
    }
    if (stop - start > 1) {
      for (const half of [zp, zn]) {
        const chunk = lexsorted(half.slice(start, stop), (v) => Math.abs(v.im));
        half.splice(start, stop - start, ...chunk);
      }
    }
    start = stop;
  }
  const zc = zp.map((p, i) => {
    const n = zn[i] as Complex;
    if (abs(sub(p, conj(n))) > CPLXREAL_TOL * abs(n)) {
      throw new RangeError('zpk2sos: a complex root has no matching conjugate');
    }
    return div(add(p, conj(n)), complex(2));
  });
  return { zc, zr };
}

/** `concatenate(_cplxreal(z))`: pair representatives first, then the real roots (imag exactly 0). */
function cplxrealFlat(z: readonly Complex[]): Complex[] {
  const { zc, zr } = cplxreal(z);
  return [...zc, ...zr.map((r) => complex(r))];
}

/** scipy's digital `idx_worst`: the root closest to the unit circle (first on ties). */
function idxWorst(p: readonly Complex[]): number {
  let best = 0;
  let bestDist = Number.POSITIVE_INFINITY;
  p.forEach((v, i) => {
    const d = Math.abs(1 - abs(v));
    if (d < bestDist) {
      bestDist = d;
      best = i;
    }
  });
  return best;
}

/** scipy's `_nearest_real_complex_idx`: the nearest root to `to`, restricted to real or complex. */
function nearestIdx(fro: readonly Complex[], to: Complex, which: 'real' | 'complex' | 'any'): number {
  let best = -1;
  let bestDist = Number.POSITIVE_INFINITY;
  fro.forEach((v, i) => {
    if (which === 'real' && !isReal(v)) return;
    if (which === 'complex' && isReal(v)) return;
    const d = abs(sub(v, to));
    if (d < bestDist) {
      bestDist = d;
      best = i;
    }
  });
  if (best < 0) throw new RangeError(`zpk2sos: no ${which} root left to pair`);
  return best;
}

/** numpy.poly for one or two roots, real part (the roots are real or a conjugate pair). */
function poly2(r1: Complex, r2: Complex): [number, number, number] {
  // convolve([1, -r1], [1, -r2]) in complex arithmetic, then the real part.
  const c1 = add(neg(r2), neg(r1));
  const c2 = mul(neg(r1), neg(r2));
  return [1, c1.re, c2.re];
}

function take(arr: Complex[], i: number): Complex {
  const [v] = arr.splice(i, 1);
  return v as Complex;
}

/** `scipy.signal.zpk2sos(z, p, k)` for a digital filter with the default 'nearest' pairing. */
export function zpk2sos(zeros: readonly Complex[], poles: readonly Complex[], k: number): Sos {
  if (zeros.length === 0 && poles.length === 0) return Float64Array.of(k, 0, 0, 1, 0, 0);
  const zPad = [...zeros];
  const pPad = [...poles];
  while (pPad.length < zPad.length) pPad.push(complex(0));
  while (zPad.length < pPad.length) zPad.push(complex(0));
  const nSections = (Math.max(pPad.length, zPad.length) + 1) >> 1;
  if (pPad.length % 2 === 1) {
    pPad.push(complex(0));
    zPad.push(complex(0));
  }
  const z = cplxrealFlat(zPad);
  const p = cplxrealFlat(pPad);
  const sos = new Float64Array(nSections * 6);
  const put = (si: number, b: readonly number[], a: readonly number[]): void => {
    sos.set(b, si * 6);
    sos.set(a, si * 6 + 3);
  };
  for (let si = nSections - 1; si >= 0; si--) {
    const p1 = take(p, idxWorst(p));
    const realPolesLeft = p.filter(isReal).length;
    if (isReal(p1) && realPolesLeft === 0) {
      // A lone real pole: a first-order section padded with a zero pole and zero.
      const z1 = take(z, nearestIdx(z, p1, 'real'));
      put(si, poly2(z1, complex(0)), poly2(p1, complex(0)));
    } else if (
      p.length + 1 === z.length &&
      !isReal(p1) &&
      realPolesLeft === 1 &&
      z.filter(isReal).length === 1
    ) {
      // Keep the real zero for the real pole that is left: use a complex zero here.
      const z1 = take(z, nearestIdx(z, p1, 'complex'));
      put(si, poly2(z1, conj(z1)), poly2(p1, conj(p1)));
    } else {
      let p2: Complex;
      if (isReal(p1)) {
        const realIdx = p.flatMap((v, i) => (isReal(v) ? [i] : []));
        const worst = realIdx[idxWorst(realIdx.map((i) => p[i] as Complex))] as number;
        p2 = take(p, worst);
      } else {
        p2 = conj(p1);
      }
      const z1 = take(z, nearestIdx(z, p1, 'any'));
      if (!isReal(z1)) {
        put(si, poly2(z1, conj(z1)), poly2(p1, p2));
      } else {
        const z2 = take(z, nearestIdx(z, p1, 'real'));
        put(si, poly2(z1, z2), poly2(p1, p2));
      }
    }
  }
  sos[0] = (sos[0] as number) * k;
  sos[1] = (sos[1] as number) * k;
  sos[2] = (sos[2] as number) * k;
  return sos;
}
