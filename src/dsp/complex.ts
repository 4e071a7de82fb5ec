/**
 * Complex arithmetic for filter design, done the way numpy does it so that designs round like
 * scipy's: multiplication `(ac − bd) + (ad + bc)i`, Smith's division (numpy's complex divide loop),
 * glibc's `csqrt` branch structure, and `|z|` as `hypot`. Design-time only: these allocate freely.
 * Not exported from the dsp surface; butterworth.ts and zpk2sos.ts use it.
 */

import { fma } from './fma.js';

export interface Complex {
  readonly re: number;
  readonly im: number;
}

export function complex(re: number, im = 0): Complex {
  return { re, im };
}

export function add(a: Complex, b: Complex): Complex {
  return { re: a.re + b.re, im: a.im + b.im };
}

export function sub(a: Complex, b: Complex): Complex {
  return { re: a.re - b.re, im: a.im - b.im };
}

export function neg(a: Complex): Complex {
  return { re: -a.re, im: -a.im };
}

export function conj(a: Complex): Complex {
  return { re: a.re, im: -a.im };
}

export function mul(a: Complex, b: Complex): Complex {
  return { re: a.re * b.re - a.im * b.im, im: a.re * b.im + a.im * b.re };
}

/** numpy's complex division (Smith's method, as in numpy's umath loops). */
export function div(a: Complex, b: Complex): Complex {
  const br = Math.abs(b.re);
  const bi = Math.abs(b.im);
  if (br >= bi) {
    if (br === 0 && bi === 0) return { re: a.re / br, im: a.im / br };
    const rat = b.im / b.re;
    const scl = 1.0 / (b.re + b.im * rat);
    return { re: (a.re + a.im * rat) * scl, im: (a.im - a.re * rat) * scl };
  }
  const rat = b.re / b.im;
  const scl = 1.0 / (b.im + b.re * rat);
  return { re: (a.re * rat + a.im) * scl, im: (a.im * rat - a.re) * scl };
}

/**
 * `np.abs(z)` on a complex array as numpy 1.24's AVX-512 loop computes it:
 * `larger · sqrt(fma(ratio, ratio, 1))` with `ratio = smaller / larger`. Used where scipy's
 * zpk2sos compares distances, so that near-ties break the same way.
 */
export function abs(a: Complex): number {
  const re = Math.abs(a.re);
  const im = Math.abs(a.im);
  if (!Number.isFinite(re) || !Number.isFinite(im)) return Math.hypot(re, im);
  const larger = Math.max(re, im);
  const smaller = Math.min(re, im);
  const ratio = larger === 0 ? 0 : smaller / larger;
  return Math.sqrt(fma(ratio, ratio, 1)) * larger;
}

/**
 * glibc 2.35+ `hypot` (sysdeps/ieee754/dbl-64/e_hypot.c, the build without hardware FMA): a
 * square root with one Newton-style correction, correctly rounded in nearly all cases. V8's
 * Math.hypot rounds differently in the last place, and csqrt's result (hence the band-pass and
 * band-stop poles) inherits that last place.
 */
export function hypot(x: number, y: number): number {
  if (!Number.isFinite(x) || !Number.isFinite(y)) return Math.hypot(x, y);
  const fx = Math.abs(x);
  const fy = Math.abs(y);
  const ax = fx < fy ? fy : fx;
  const ay = fx < fy ? fx : fy;
  if (ax > LARGE_VAL) {
    if (ay <= ax * HYPOT_EPS) return ax + ay;
    return hypotKernel(ax * SCALE, ay * SCALE) / SCALE;
  }
  if (ay < TINY_VAL) {
    if (ax >= ay / HYPOT_EPS) return ax + ay;
    return hypotKernel(ax / SCALE, ay / SCALE) * SCALE;
  }
  if (ay <= ax * HYPOT_EPS) return ax + ay;
  return hypotKernel(ax, ay);
}

const SCALE = 2 ** -600;
const LARGE_VAL = 2 ** 511;
const TINY_VAL = 2 ** -511;
const HYPOT_EPS = 2 ** -54;

function hypotKernel(ax: number, ay: number): number {
  let h = Math.sqrt(ax * ax + ay * ay);
  let t1: number;
  let t2: number;
  if (h <= 2.0 * ay) {
    const delta = h - ay;
    t1 = ax * (2.0 * delta - ax);
    t2 = (delta - 2.0 * (ax - ay)) * delta;
  } else {
    const delta = h - ax;
    t1 = 2.0 * delta * (ax - 2.0 * ay);
    t2 = (4.0 * delta - ay) * ay + delta * delta;
  }
  h -= (t1 + t2) / (2.0 * h);
  return h;
}

/** Principal square root with glibc `csqrt`'s branches (finite, non-extreme inputs only). */
export function sqrt(a: Complex): Complex {
  const x = a.re;
  const y = a.im;
  if (y === 0) {
    if (x < 0) return { re: 0, im: Object.is(y, -0) ? -Math.sqrt(-x) : Math.sqrt(-x) };
    return { re: Math.abs(Math.sqrt(x)), im: y };
  }
  if (x === 0) {
    const r = Math.sqrt(0.5 * Math.abs(y));
    return { re: r, im: y < 0 ? -r : r };
  }
  const d = hypot(x, y);
  let r: number;
  let s: number;
  if (x > 0) {
    r = Math.sqrt(0.5 * (d + x));
    s = 0.5 * (y / r);
  } else {
    s = Math.sqrt(0.5 * (d - x));
    r = Math.abs(0.5 * (y / s));
  }
  return { re: r, im: y < 0 ? -Math.abs(s) : Math.abs(s) };
}

/** `exp(i·theta)` as glibc's cexp computes it for a purely imaginary argument. */
export function expi(theta: number): Complex {
  return { re: Math.cos(theta), im: Math.sin(theta) };
}

/**
 * numpy.prod over complex values, left to right. numpy's reduction loop is compiled with FMA
 * contraction on x86-64 (AVX-512 dispatch), computing `re = fma(a, c, −b·d)` and
 * `im = fma(a, d, b·c)` for accumulator a+bi and element c+di; this was matched against numpy
 * 1.24 on the machine that made the golden vectors. The rounding of the product decides the
 * last bit of every Butterworth gain.
 */
export function prod(values: readonly Complex[]): Complex {
  if (values.length === 0) return { re: 1, im: 0 };
  let acc = values[0] as Complex;
  for (let i = 1; i < values.length; i++) {
    const v = values[i] as Complex;
    acc = { re: fma(acc.re, v.re, -(acc.im * v.im)), im: fma(acc.re, v.im, acc.im * v.re) };
  }
  return acc;
}

/** numpy.isreal: the imaginary part is exactly zero. */
export function isReal(a: Complex): boolean {
  return a.im === 0;
}
