/**
 * Real-input DFT of any length, one-sided (bins 0..⌊n/2⌋). Powers of two go to fft.js (radix-4);
 * lengths whose prime factors are all small (250 = 2·5³: one second at 250 Hz, the common Welch
 * segment) to the mixed-radix FFT of mixed-radix-fft.ts; any other length to Bluestein's chirp-z
 * algorithm with fft.js transforms of the next power of two ≥ 2n−1. Every length is transformed
 * exactly like scipy's. Buffers are allocated once per plan.
 */

import FFT from 'fft.js';
import { MixedRadixFft, smallFactors } from './mixed-radix-fft.js';

/** The fft.js methods used here, typed (its bundled typings declare them `any`). */
interface FftJs {
  transform(out: Float64Array, data: Float64Array): void;
  realTransform(out: Float64Array, data: Float64Array): void;
  inverseTransform(out: Float64Array, data: Float64Array): void;
}

function createFft(size: number): FftJs {
  return new FFT(size);
}

function isPowerOfTwo(n: number): boolean {
  return n >= 2 && (n & (n - 1)) === 0;
}

/** A reusable plan for the one-sided DFT of real sequences of length `n`. */
export class RealDft {
  readonly n: number;
  /** Number of one-sided bins: ⌊n/2⌋ + 1. */
  readonly bins: number;
  private readonly fft: FftJs | undefined;
  private readonly work: Float64Array;
  private readonly out: Float64Array;
  /** Small prime factors only: the mixed-radix plan, `work` and `out` its real and imaginary parts. */
  private readonly mixed: MixedRadixFft | undefined;
  /** Bluestein only: the chirp exp(−iπk²/n) and the transformed conjugate chirp filter. */
  private readonly chirp: Float64Array | undefined;
  private readonly chirpFilterSpectrum: Float64Array | undefined;
  private readonly product: Float64Array | undefined;

  constructor(n: number) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`DFT length ${n} must be a whole number >= 1`);
    this.n = n;
    this.bins = Math.floor(n / 2) + 1;
    if (isPowerOfTwo(n)) {
      this.fft = createFft(n);
      this.work = new Float64Array(n);
      this.out = new Float64Array(2 * n);
      return;
    }
    if (n > 1 && smallFactors(n) !== undefined) {
      this.mixed = new MixedRadixFft(n);
      this.work = new Float64Array(n);
      this.out = new Float64Array(n);
      return;
    }
    let m = 2;
    while (m < 2 * n - 1) m *= 2;
    this.fft = createFft(m);
    this.work = new Float64Array(2 * m);
    this.out = new Float64Array(2 * m);
    this.product = new Float64Array(2 * m);
    const chirp = new Float64Array(2 * n);
    for (let k = 0; k < n; k++) {
      // k² mod 2n keeps the angle small and exact for large k
      const angle = (Math.PI * ((k * k) % (2 * n))) / n;
      chirp[2 * k] = Math.cos(angle);
      chirp[2 * k + 1] = -Math.sin(angle);
    }
    const filter = new Float64Array(2 * m);
    for (let k = 0; k < n; k++) {
      const re = chirp[2 * k] as number;
      const im = -(chirp[2 * k + 1] as number);
      filter[2 * k] = re;
      filter[2 * k + 1] = im;
      if (k > 0) {
        filter[2 * (m - k)] = re;
        filter[2 * (m - k) + 1] = im;
      }
    }
    this.chirp = chirp;
    this.chirpFilterSpectrum = new Float64Array(2 * m);
    this.fft.transform(this.chirpFilterSpectrum, filter);
  }

  /**
   * One-sided DFT `X[k] = Σ x[j]·e^{−2πijk/n}` of `input[0..n)` into `re[0..bins)`, `im[0..bins)`.
   */
  transform(input: ArrayLike<number>, re: Float64Array, im: Float64Array): void {
    const n = this.n;
    if (n === 1) {
      re[0] = input[0] as number;
      im[0] = 0;
      return;
    }
    if (this.mixed !== undefined) {
      const real = this.work;
      const imag = this.out;
      for (let i = 0; i < n; i++) real[i] = input[i] as number;
      imag.fill(0);
      this.mixed.transform(real, imag);
      for (let k = 0; k < this.bins; k++) {
        re[k] = real[k] as number;
        im[k] = imag[k] as number;
      }
      return;
    }
    const fft = this.fft as FftJs;
    if (this.chirp === undefined || this.chirpFilterSpectrum === undefined || this.product === undefined) {
      for (let i = 0; i < n; i++) this.work[i] = input[i] as number;
      fft.realTransform(this.out, this.work);
      for (let k = 0; k < this.bins; k++) {
        re[k] = this.out[2 * k] as number;
        im[k] = this.out[2 * k + 1] as number;
      }
      return;
    }
    const chirp = this.chirp;
    const work = this.work;
    work.fill(0);
    for (let j = 0; j < n; j++) {
      const x = input[j] as number;
      work[2 * j] = x * (chirp[2 * j] as number);
      work[2 * j + 1] = x * (chirp[2 * j + 1] as number);
    }
    fft.transform(this.out, work);
    const spec = this.chirpFilterSpectrum;
    const prod = this.product;
    for (let i = 0; i < prod.length; i += 2) {
      const ar = this.out[i] as number;
      const ai = this.out[i + 1] as number;
      const br = spec[i] as number;
      const bi = spec[i + 1] as number;
      prod[i] = ar * br - ai * bi;
      prod[i + 1] = ar * bi + ai * br;
    }
    fft.inverseTransform(this.out, prod);
    for (let k = 0; k < this.bins; k++) {
      const cr = this.out[2 * k] as number;
      const ci = this.out[2 * k + 1] as number;
      const wr = chirp[2 * k] as number;
      const wi = chirp[2 * k + 1] as number;
      re[k] = cr * wr - ci * wi;
      im[k] = cr * wi + ci * wr;
    }
  }
}
