/**
 * Display filters and the spectrum of the Signals panel. These shape what is drawn only (the
 * service's `filter` node is the one to use for data): second-order biquads from the Audio EQ
 * Cookbook (a band-pass is a high-pass then a low-pass, each applied twice for 24 dB/octave), a
 * notch, and a radix-2 FFT of a Hann-windowed block.
 */

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

/** Power spectrum (µV²/Hz, one-sided) of the last `n` samples (n a power of two), Hann-windowed. */
export function powerSpectrum(samples: Float32Array | Float64Array, fs: number): Float64Array {
  const n = samples.length;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  let mean = 0;
  for (let i = 0; i < n; i++) mean += samples[i] as number;
  mean /= n;
  let windowPower = 0;
  for (let i = 0; i < n; i++) {
    const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1));
    re[i] = ((samples[i] as number) - mean) * w;
    windowPower += w * w;
  }
  fft(re, im);
  const half = n / 2 + 1;
  const out = new Float64Array(half);
  for (let k = 0; k < half; k++) {
    const p = ((re[k] as number) ** 2 + (im[k] as number) ** 2) / (fs * windowPower);
    out[k] = k === 0 || k === n / 2 ? p : 2 * p;
  }
  return out;
}

/** In-place iterative radix-2 FFT; the length must be a power of two. */
export function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j] as number, re[i] as number];
      [im[i], im[j]] = [im[j] as number, im[i] as number];
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const angle = (-2 * Math.PI) / size;
    const wr = Math.cos(angle);
    const wi = Math.sin(angle);
    for (let start = 0; start < n; start += size) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < size / 2; k++) {
        const a = start + k;
        const b = a + size / 2;
        const tr = (re[b] as number) * cr - (im[b] as number) * ci;
        const ti = (re[b] as number) * ci + (im[b] as number) * cr;
        re[b] = (re[a] as number) - tr;
        im[b] = (im[a] as number) - ti;
        re[a] = (re[a] as number) + tr;
        im[a] = (im[a] as number) + ti;
        const next = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = next;
      }
    }
  }
}
