/**
 * Digital Butterworth design in second-order sections: `scipy.signal.butter(order, Wn, btype,
 * fs=sampleRate, output='sos')`, ported step by step from scipy 1.10 (`buttap` → `lp2lp_zpk` /
 * `lp2hp_zpk` / `lp2bp_zpk` / `lp2bs_zpk` with the prewarped edges `4·tan(π·Wn/2)` → `bilinear_zpk`
 * with fs = 2 → `zpk2sos` with 'nearest' pairing). The complex arithmetic rounds as numpy's does
 * (see complex.ts, fma.ts), so on the golden vectors (test/fixtures/dsp, 616 designs) 547 designs
 * are bit-identical to scipy's and the rest differ by a unit or two in the last place, all from
 * numpy's vectorised `tan` in the pre-warping (SVML on AVX-512 CPUs, not correctly rounded, not
 * reproducible here); `sosfilt` outputs agree within 3e-13 on every vector.
 *
 * Why bit-identity matters: some legal designs are numerically ill-conditioned in sections — e.g.
 * an order-8 band-stop from 0.2 Hz to 0.45·fs — and there a last-place change in one coefficient
 * moves scipy's own `sosfilt` output by up to 1e-3. Those cases match only because the coefficients
 * match exactly; the same design in scipy on a CPU without AVX-512 can differ from scipy here as much.
 *
 * Orders 1..8 (the `filter` node's range, docs/api.md §Built-in executables). A band filter of order
 * N has 2N poles: N sections; a low/high-pass of order N has ⌈N/2⌉ sections.
 */

import { type Complex, complex, div, expi, mul, neg, prod, sqrt, sub, add } from './complex.js';
import { powInt } from './fma.js';
import type { Sos } from './sos.js';
import { zpk2sos } from './zpk2sos.js';

export type BandType = 'lowpass' | 'highpass' | 'bandpass' | 'bandstop';

/** Highest Butterworth order accepted (the filter node's documented range is 1..8). */
export const MAX_BUTTERWORTH_ORDER = 8;

interface Zpk {
  z: Complex[];
  p: Complex[];
  k: number;
}

/** scipy's `buttap(N)`: analog prototype poles `-exp(iπm/(2N))`, m = −N+1, −N+3, …, N−1. */
function buttap(n: number): Zpk {
  const p: Complex[] = [];
  const inv = 1 / (2 * n); // numpy divides the complex array by 2N as a multiplication by 1/(2N)
  for (let m = -n + 1; m < n; m += 2) p.push(neg(expi(Math.PI * m * inv)));
  return { z: [], p, k: 1 };
}

function lp2lp({ p, k }: Zpk, wo: number): Zpk {
  const w = complex(wo);
  return { z: [], p: p.map((v) => mul(w, v)), k: k * powInt(wo, p.length) };
}

function lp2hp({ p, k }: Zpk, wo: number): Zpk {
  const w = complex(wo);
  return {
    z: p.map(() => complex(0)),
    p: p.map((v) => div(w, v)),
    k: k * div(complex(1), prod(p.map(neg))).re,
  };
}

/** `p·bw/2 ± sqrt((p·bw/2)² − wo²)` for each prototype pole, the plus roots first (scipy's order). */
function bandTransform(scaled: Complex[], wo: number): Complex[] {
  const wo2 = wo * wo; // Python: wo ** 2, correctly rounded like this product
  const roots = scaled.map((v) => sqrt(sub(mul(v, v), complex(wo2))));
  return [
    ...scaled.map((v, i) => add(v, roots[i] as Complex)),
    ...scaled.map((v, i) => sub(v, roots[i] as Complex)),
  ];
}

function lp2bp({ p, k }: Zpk, wo: number, bw: number): Zpk {
  const b = complex(bw);
  const half = complex(2);
  const scaled = p.map((v) => div(mul(v, b), half));
  return { z: p.map(() => complex(0)), p: bandTransform(scaled, wo), k: k * powInt(bw, p.length) };
}

function lp2bs({ p, k }: Zpk, wo: number, bw: number): Zpk {
  const halfBw = complex(bw / 2);
  const scaled = p.map((v) => div(halfBw, v));
  return {
    z: [...p.map(() => complex(0, wo)), ...p.map(() => complex(0, -wo))],
    p: bandTransform(scaled, wo),
    k: k * div(complex(1), prod(p.map(neg))).re,
  };
}

/** scipy's `bilinear_zpk(z, p, k, fs=2)`; zeros at infinity map to z = −1. */
function bilinear({ z, p, k }: Zpk): Zpk {
  const fs2 = complex(4);
  const map = (v: Complex): Complex => div(add(fs2, v), sub(fs2, v));
  const zz = z.map(map);
  for (let i = z.length; i < p.length; i++) zz.push(complex(-1));
  const num = z.length === 0 ? complex(1) : prod(z.map((v) => sub(fs2, v)));
  return { z: zz, p: p.map(map), k: k * div(num, prod(p.map((v) => sub(fs2, v)))).re };
}

function formatHz(hz: number): string {
  return `${Number(hz.toPrecision(6))} Hz`;
}

/** Checks one edge and returns scipy's normalised frequency Wn = 2·f/fs. */
function normalisedEdge(hz: number, sampleRate: number, label: string): number {
  const nyquist = sampleRate / 2;
  if (!Number.isFinite(hz) || hz <= 0) {
    throw new RangeError(`${label} ${formatHz(hz)} must be above 0 Hz`);
  }
  if (hz >= nyquist) {
    throw new RangeError(
      `${label} ${formatHz(hz)} is at or above the Nyquist frequency ${formatHz(nyquist)} (sample rate ${formatHz(sampleRate)})`,
    );
  }
  return (2 * hz) / sampleRate;
}

/** Prewarped analog edge for the bilinear transform with fs = 2 (scipy: `2·fs·tan(π·Wn/fs)`). */
function warp(wn: number): number {
  return 4 * Math.tan((Math.PI * wn) / 2);
}

/**
 * `scipy.signal.butter(order, Wn, btype, fs=sampleRate, output='sos')`. `cutoffHz` is one
 * frequency for lowpass/highpass and an increasing pair [low, high] for bandpass/bandstop.
 * Throws RangeError with a message for a person when a cutoff is <= 0 or >= Nyquist, the pair is
 * not increasing, or the order is outside 1..8.
 */
export function butterworth(
  order: number,
  cutoffHz: number | readonly [number, number],
  type: BandType,
  sampleRate: number,
): Sos {
  if (!Number.isFinite(sampleRate) || sampleRate <= 0) {
    throw new RangeError(`sample rate ${sampleRate} Hz must be a positive number`);
  }
  if (!Number.isInteger(order) || order < 1 || order > MAX_BUTTERWORTH_ORDER) {
    throw new RangeError(
      `Butterworth order ${order} must be a whole number from 1 to ${MAX_BUTTERWORTH_ORDER}`,
    );
  }
  const proto = buttap(order);
  let analog: Zpk;
  if (type === 'lowpass' || type === 'highpass') {
    if (typeof cutoffHz !== 'number') {
      throw new RangeError(`a ${type} filter takes one cutoff frequency, not a pair`);
    }
    const wo = warp(normalisedEdge(cutoffHz, sampleRate, `${type} cutoff`));
    analog = type === 'lowpass' ? lp2lp(proto, wo) : lp2hp(proto, wo);
  } else {
    if (typeof cutoffHz === 'number') {
      throw new RangeError(`a ${type} filter takes a pair of edge frequencies [low, high]`);
    }
    const [lowHz, highHz] = cutoffHz;
    const w0 = normalisedEdge(lowHz, sampleRate, `${type} lower edge`);
    const w1 = normalisedEdge(highHz, sampleRate, `${type} upper edge`);
    if (!(w0 < w1)) {
      throw new RangeError(
        `${type} edges must increase: lower ${formatHz(lowHz)} is not below upper ${formatHz(highHz)}`,
      );
    }
    const lo = warp(w0);
    const hi = warp(w1);
    const bw = hi - lo;
    const wo = Math.sqrt(lo * hi);
    analog = type === 'bandpass' ? lp2bp(proto, wo, bw) : lp2bs(proto, wo, bw);
  }
  const digital = bilinear(analog);
  return zpk2sos(digital.z, digital.p, digital.k);
}
