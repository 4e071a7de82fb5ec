/**
 * Fused multiply-add `a·b + c` with one rounding, emulated in float64 (JavaScript has no Math.fma).
 * numpy's complex product reduction (`np.prod`) is compiled with FMA contraction on x86-64 CPUs
 * with AVX-512/FMA, and scipy's Butterworth gains go through it; reproducing that rounding is what
 * keeps the designed gain bit-identical to scipy's (see complex.ts `prod`).
 *
 * Method: Boldo & Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using
 * rounding to odd" (IEEE Trans. Computers 57(4), 2008): exact product and sum by Dekker/Knuth
 * error-free transformations, the low parts added with rounding to odd, then one final rounding.
 * Valid away from overflow and underflow, which filter design never approaches.
 */

const SPLITTER = 134217729; // 2^27 + 1, Veltkamp's split for float64

const bits = new Float64Array(1);
const words = new BigInt64Array(bits.buffer);

/** Knuth's TwoSum: s + err equals a + b exactly. */
function twoSum(a: number, b: number): [number, number] {
  const s = a + b;
  const bb = s - a;
  return [s, a - (s - bb) + (b - bb)];
}

/** Dekker's TwoProduct: p + err equals a·b exactly. */
function twoProduct(a: number, b: number): [number, number] {
  const p = a * b;
  const ca = SPLITTER * a;
  const ah = ca - (ca - a);
  const al = a - ah;
  const cb = SPLITTER * b;
  const bh = cb - (cb - b);
  const bl = b - bh;
  return [p, ah * bh - p + ah * bl + al * bh + al * bl];
}

/** a + b rounded to odd: when inexact, the neighbour whose last significand bit is 1. */
function addRoundToOdd(a: number, b: number): number {
  const [s, err] = twoSum(a, b);
  if (err === 0) return s;
  bits[0] = s;
  const word = words[0] as bigint;
  if ((word & 1n) === 1n) return s;
  // s is even: the exact sum lies between s and its neighbour towards err, which is odd.
  const towardLarger = err > 0 === s > 0;
  words[0] = towardLarger ? word + 1n : word - 1n;
  return bits[0];
}

/** Correctly rounded a·b + c. */
export function fma(a: number, b: number, c: number): number {
  const [ph, pl] = twoProduct(a, b);
  const [sh, sl] = twoSum(c, ph);
  return sh + addRoundToOdd(sl, pl);
}

/**
 * `x ** n` for a small whole n, correctly rounded like glibc's `pow` (which Python's `float ** int`
 * calls): the product is carried in double-double and rounded once. V8's Math.pow can be one unit
 * in the last place off, and scipy's Butterworth gains use `wo ** order`.
 */
export function powInt(x: number, n: number): number {
  if (!Number.isInteger(n) || n < 0) return x ** n;
  let hi = 1;
  let lo = 0;
  for (let i = 0; i < n; i++) {
    const [p, e] = twoProduct(hi, x);
    const t = e + lo * x;
    hi = p + t;
    lo = t - (hi - p);
  }
  return hi + lo;
}
