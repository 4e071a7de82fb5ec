import { describe, expect, it } from 'vitest';
import { loadWelch } from '../../test/fixtures/dsp/golden.js';
import { RealDft } from './fft.js';
import { bandPower, toneAmplitude, welch } from './spectrum.js';

function sine(n: number, fs: number, f: number, amplitude: number, phase = 0): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => amplitude * Math.sin((2 * Math.PI * f * i) / fs + phase));
}

function gaussianNoise(n: number, seed: number): Float64Array {
  let s = seed >>> 0 || 1;
  const uniform = (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return ((s >>> 0) + 0.5) / 2 ** 32;
  };
  return Float64Array.from(
    { length: n },
    () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform()),
  );
}

describe('RealDft', () => {
  it('equals the direct DFT for power-of-two and other lengths', () => {
    // Powers of two (fft.js), small prime factors only (mixed radix: 4, 2, 3, 5 and the generic
    // radix up to 13), larger primes (Bluestein).
    for (const n of [
      1, 2, 3, 5, 6, 7, 8, 12, 13, 15, 34, 49, 64, 77, 100, 121, 125, 250, 257, 500, 1000, 1001,
    ]) {
      const x = gaussianNoise(n, n);
      const dft = new RealDft(n);
      const re = new Float64Array(dft.bins);
      const im = new Float64Array(dft.bins);
      dft.transform(x, re, im);
      for (let k = 0; k < dft.bins; k++) {
        let er = 0;
        let ei = 0;
        for (let j = 0; j < n; j++) {
          er += x[j]! * Math.cos((2 * Math.PI * j * k) / n);
          ei -= x[j]! * Math.sin((2 * Math.PI * j * k) / n);
        }
        expect(Math.abs(re[k]! - er), `n=${n} k=${k}`).toBeLessThan(1e-9 * n);
        expect(Math.abs(im[k]! - ei), `n=${n} k=${k}`).toBeLessThan(1e-9 * n);
      }
    }
  });
});

describe('welch', () => {
  const golden = loadWelch();
  it('matches scipy.signal.welch for nperseg 256, 250, 64 and 100', () => {
    for (const c of golden.cases) {
      const { frequencies, psd } = welch(golden.input, c.rate, c.nperseg);
      expect(Array.from(frequencies)).toEqual(c.frequencies);
      expect(psd.length).toBe(c.psd.length);
      const peak = Math.max(...c.psd);
      c.psd.forEach((expected, k) => {
        expect(Math.abs(psd[k]! - expected), `nperseg ${c.nperseg} bin ${k}`).toBeLessThan(
          1e-12 * peak + 1e-15,
        );
      });
    }
  });
  it('cuts nperseg to the signal length, as scipy does', () => {
    const x = gaussianNoise(100, 5);
    expect(welch(x, 250, 1024).psd).toEqual(welch(x, 250, 100).psd);
  });
});

describe('toneAmplitude', () => {
  it('reads a sine of amplitude A as A, on a bin and between bins, next to other tones', () => {
    const fs = 250;
    for (const f of [10, 10.37, 50, 61.8]) {
      const x = sine(2500, fs, f, 3, 0.4);
      const mixed = x.map((v, i) => v + 5 + 0.5 * Math.sin((2 * Math.PI * 23 * i) / fs));
      expect(toneAmplitude(mixed, fs, f) / 3, `${f} Hz`).toBeCloseTo(1, 3);
    }
  });
  it('reads near zero where there is no component', () => {
    const x = sine(2500, 250, 10, 1);
    expect(toneAmplitude(x, 250, 50)).toBeLessThan(1e-4);
  });
});

describe('bandPower', () => {
  it('gives A²/2 for a sine inside the band and ~0 outside it', () => {
    const x = sine(5000, 250, 10, 2);
    // within 0.25 %: the Hann window leaks a little power beyond ±2 bins
    expect(bandPower(x, 250, 8, 12) / 2).toBeCloseTo(1, 2);
    expect(bandPower(x, 250, 20, 125)).toBeLessThan(1e-6);
  });
  it('gives the variance of white noise over 0..Nyquist and its share over a sub-band', () => {
    const x = gaussianNoise(50_000, 11).map((v) => 0.5 * v);
    const total = bandPower(x, 500, 0, 250);
    expect(total).toBeGreaterThan(0.25 * 0.97);
    expect(total).toBeLessThan(0.25 * 1.03);
    expect(bandPower(x, 500, 0, 125) / total).toBeCloseTo(0.5, 1);
  });
  it('refuses bands outside 0..Nyquist', () => {
    expect(() => bandPower([1, 2, 3], 250, 10, 200)).toThrow(/Nyquist 125 Hz/);
  });
});
