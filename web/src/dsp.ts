/**
 * Display filters and the spectrum of the Signals panel. These shape what is drawn only (the
 * service's `filter` node is the one to use for data): second-order biquads from the Audio EQ
 * Cookbook (a band-pass is a high-pass then a low-pass, each applied twice for 24 dB/octave), a
 * notch, and the spectrum of a Hann-windowed block (fft.js, the FFT the service's dsp/ uses too).
 */

import FFT from 'fft.js';

export interface Biquad {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
}

function normalised(b0: number, b1: number, b2: number, a0: number, a1: number, a2: number): Biquad {
  return { b0: b0 / a0, b1: b1 / a0, b2: b2 / a0, a1: a1 / a0, a2: a2 / a0 };
}

export function lowpass(fc: number, fs: number, q = Math.SQRT1_2): Biquad {
  const w = (2 * Math.PI * fc) / fs;
  const alpha = Math.sin(w) / (2 * q);
  const c = Math.cos(w);
  return normalised((1 - c) / 2, 1 - c, (1 - c) / 2, 1 + alpha, -2 * c, 1 - alpha);
}

export function highpass(fc: number, fs: number, q = Math.SQRT1_2): Biquad {
  const w = (2 * Math.PI * fc) / fs;
  const alpha = Math.sin(w) / (2 * q);
  const c = Math.cos(w);
  return normalised((1 + c) / 2, -(1 + c), (1 + c) / 2, 1 + alpha, -2 * c, 1 - alpha);
}

export function notch(fc: number, fs: number, q = 30): Biquad {
  const w = (2 * Math.PI * fc) / fs;
  const alpha = Math.sin(w) / (2 * q);
  const c = Math.cos(w);
  return normalised(1, -2 * c, 1, 1 + alpha, -2 * c, 1 - alpha);
}

export interface FilterSettings {
  /** Hz, or 0 for none. */
  highpass: number;
  lowpass: number;
  notch: number;
}

/** The sections a setting asks for at a rate; frequencies at or above Nyquist are left out. */
export function design(settings: FilterSettings, fs: number): Biquad[] {
  const nyquist = fs / 2;
  const sections: Biquad[] = [];
  if (settings.highpass > 0 && settings.highpass < nyquist) {
    sections.push(highpass(settings.highpass, fs), highpass(settings.highpass, fs));
  }
  if (settings.lowpass > 0 && settings.lowpass < nyquist) {
    sections.push(lowpass(settings.lowpass, fs), lowpass(settings.lowpass, fs));
  }
  if (settings.notch > 0 && settings.notch < nyquist) sections.push(notch(settings.notch, fs));
  return sections;
}

/** A cascade of biquads with its own state (one per channel), direct form II transposed. */
export class Cascade {
  private readonly state: Float64Array;

  constructor(private readonly sections: readonly Biquad[]) {
    this.state = new Float64Array(sections.length * 2);
  }

  step(x: number): number {
    let v = x;
    for (let i = 0; i < this.sections.length; i++) {
      const s = this.sections[i] as Biquad;
      const z1 = this.state[2 * i] as number;
      const z2 = this.state[2 * i + 1] as number;
      const y = s.b0 * v + z1;
      this.state[2 * i] = s.b1 * v - s.a1 * y + z2;
      this.state[2 * i + 1] = s.b2 * v - s.a2 * y;
      v = y;
    }
    return v;
  }
}

/** The fft.js methods used here, typed (its bundled typings declare them `any`). */
interface FftPlan {
  realTransform(out: Float64Array, data: Float64Array): void;
}

/** One fft.js plan per block length (the panel uses one length, so this holds one or two). */
const plans = new Map<number, FftPlan>();

function planOf(n: number): FftPlan {
  let plan = plans.get(n);
  if (plan === undefined) {
    plan = new FFT(n);
    plans.set(n, plan);
  }
  return plan;
}

/** Power spectrum (µV²/Hz, one-sided) of the last `n` samples (n a power of two), Hann-windowed. */
export function powerSpectrum(samples: Float32Array | Float64Array, fs: number): Float64Array {
  const n = samples.length;
  const windowed = new Float64Array(n);
  let mean = 0;
  for (let i = 0; i < n; i++) mean += samples[i] as number;
  mean /= n;
  let windowPower = 0;
  for (let i = 0; i < n; i++) {
    const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1));
    windowed[i] = ((samples[i] as number) - mean) * w;
    windowPower += w * w;
  }
  // fft.js writes the complex bins interleaved (re, im); a real input fills bins 0..n/2.
  const bins = new Float64Array(2 * n);
  planOf(n).realTransform(bins, windowed);
  const half = n / 2 + 1;
  const out = new Float64Array(half);
  for (let k = 0; k < half; k++) {
    const p = ((bins[2 * k] as number) ** 2 + (bins[2 * k + 1] as number) ** 2) / (fs * windowPower);
    out[k] = k === 0 || k === n / 2 ? p : 2 * p;
  }
  return out;
}
