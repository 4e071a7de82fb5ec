/**
 * Welch's power spectral density as `scipy.signal.welch(x, fs, window, nperseg, noverlap,
 * detrend, return_onesided=True, scaling='density', average='mean')` computes it, as a plan made
 * once per design and applied to many blocks (the `band-power` node runs one per window step and
 * channel; spectrum.ts's `welch` runs one per call):
 * - segments of `nperseg` samples start every `nperseg − noverlap` samples from the block's first
 *   sample; a tail shorter than a segment is left out, as scipy does;
 * - each segment has its mean removed (`detrend: 'constant'`, scipy's default) or not (`'none'`,
 *   scipy's `detrend=False`), is multiplied by the window and transformed (fft.ts, any length);
 * - `P[k] = c · mean over segments of |X[k]|²`, c = 1 / (fs · Σw²), doubled for every bin but DC and
 *   (even nperseg) Nyquist: units²/Hz at `f[k] = k · fs / nperseg`, k = 0 … ⌊nperseg/2⌋.
 * Windows are scipy's `get_window(name, nperseg)`, i.e. periodic (DFT-even).
 */

import { RealDft } from './fft.js';

export const WELCH_WINDOWS = ['hann', 'hamming', 'blackman', 'boxcar'] as const;
export type WelchWindow = (typeof WELCH_WINDOWS)[number];
export type WelchDetrend = 'constant' | 'none';

/** scipy's `get_window(name, n)`: the periodic form of each window (cosine sums with its coefficients). */
export function periodicWindow(name: WelchWindow, n: number): Float64Array {
  const coefficients: Record<WelchWindow, readonly number[]> = {
    hann: [0.5, 0.5],
    hamming: [0.54, 0.46],
    blackman: [0.42, 0.5, 0.08],
    boxcar: [1],
  };
  const a = coefficients[name];
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let v = 0;
    for (let k = 0; k < a.length; k++) {
      v += (k % 2 === 0 ? 1 : -1) * (a[k] as number) * Math.cos((2 * Math.PI * k * i) / n);
    }
    w[i] = v;
  }
  return w;
}

export interface WelchDesign {
  sampleRate: number;
  nperseg: number;
  noverlap: number;
  window: WelchWindow;
  detrend: WelchDetrend;
}

/** A Welch PSD of blocks of any length ≥ nperseg, with its buffers allocated once. */
export class WelchPlan {
  readonly nperseg: number;
  readonly bins: number;
  /** Frequency of each PSD bin, Hz. */
  readonly frequencies: Float64Array;
  private readonly step: number;
  private readonly window: Float64Array;
  private readonly detrend: boolean;
  private readonly dft: RealDft;
  private readonly scale: number;
  private readonly segment: Float64Array;
  private readonly re: Float64Array;
  private readonly im: Float64Array;

  constructor(design: WelchDesign) {
    const { sampleRate, nperseg, noverlap } = design;
    if (!Number.isFinite(sampleRate) || sampleRate <= 0) {
      throw new RangeError(`sample rate ${sampleRate} Hz must be a positive number`);
    }
    if (!Number.isInteger(nperseg) || nperseg < 1) {
      throw new RangeError(`nperseg ${nperseg} must be a whole number >= 1`);
    }
    if (!Number.isInteger(noverlap) || noverlap < 0 || noverlap >= nperseg) {
      throw new RangeError(
        `noverlap ${noverlap} must be a whole number from 0 to nperseg − 1 (${nperseg - 1})`,
      );
    }
    this.nperseg = nperseg;
    this.step = nperseg - noverlap;
    this.window = periodicWindow(design.window, nperseg);
    this.detrend = design.detrend === 'constant';
    this.dft = new RealDft(nperseg);
    this.bins = this.dft.bins;
    let windowPower = 0;
    for (const v of this.window) windowPower += v * v;
    this.scale = 1 / (sampleRate * windowPower);
    this.frequencies = Float64Array.from({ length: this.bins }, (_, k) => (k * sampleRate) / nperseg);
    this.segment = new Float64Array(nperseg);
    this.re = new Float64Array(this.bins);
    this.im = new Float64Array(this.bins);
  }

  /** Segments in a block of `length` samples (0 when shorter than one segment). */
  segments(length: number): number {
    return length < this.nperseg ? 0 : Math.floor((length - this.nperseg) / this.step) + 1;
  }

  /** The PSD of `data[0..length)` into `psd[0..bins)`; `length` must hold at least one segment. */
  psd(data: ArrayLike<number>, length: number, psd: Float64Array): void {
    const n = this.nperseg;
    const segments = this.segments(length);
    if (segments === 0) throw new RangeError(`a block of ${length} samples is shorter than a segment (${n})`);
    const { segment, re, im, window } = this;
    psd.fill(0, 0, this.bins);
    for (let s = 0; s < segments; s++) {
      const start = s * this.step;
      let mean = 0;
      if (this.detrend) {
        for (let i = 0; i < n; i++) mean += data[start + i] as number;
        mean /= n;
      }
      for (let i = 0; i < n; i++) segment[i] = ((data[start + i] as number) - mean) * (window[i] as number);
      this.dft.transform(segment, re, im);
      for (let k = 0; k < this.bins; k++)
        psd[k] = (psd[k] as number) + (re[k] as number) ** 2 + (im[k] as number) ** 2;
    }
    // One-sided: every bin but DC and (even n) Nyquist also stands for its negative frequency.
    const lastDoubled = n % 2 === 0 ? this.bins - 2 : this.bins - 1;
    const scale = this.scale / segments;
    for (let k = 0; k < this.bins; k++) {
      psd[k] = (psd[k] as number) * scale * (k >= 1 && k <= lastDoubled ? 2 : 1);
    }
  }
}

/**
 * The bins a band [low, high] Hz integrates: first and last index of the bins with
 * low ≤ f[k] ≤ high (both edges included); `count` 0 when none lies within.
 */
export function bandBins(
  frequencies: Float64Array,
  low: number,
  high: number,
): { first: number; count: number } {
  let first = -1;
  let count = 0;
  for (let k = 0; k < frequencies.length; k++) {
    const f = frequencies[k] as number;
    if (f >= low && f <= high) {
      if (first < 0) first = k;
      count++;
    }
  }
  return { first: Math.max(first, 0), count };
}

/**
 * The trapezoid rule over the PSD bins `first … first + count − 1` (numpy's `trapz(psd[mask],
 * f[mask])`): Σ (P[k] + P[k+1]) / 2 · (f[k+1] − f[k]); units² for a PSD in units²/Hz. 0 with fewer
 * than two bins.
 */
export function trapezoid(
  psd: Float64Array,
  frequencies: Float64Array,
  first: number,
  count: number,
): number {
  let sum = 0;
  for (let k = first; k < first + count - 1; k++) {
    sum +=
      (((psd[k] as number) + (psd[k + 1] as number)) / 2) *
      ((frequencies[k + 1] as number) - (frequencies[k] as number));
  }
  return sum;
}
