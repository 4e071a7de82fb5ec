/**
 * The Signals panel's spectrum (web/src/dsp.ts, on fft.js): the same one-sided, Hann-windowed
 * power spectral density as the DFT written out term by term.
 */
import { describe, expect, it } from 'vitest';
import { powerSpectrum } from '../../web/src/dsp.js';

/** The definition: mean removed, Hann window, |X[k]|² / (fs · Σw²), doubled except DC and Nyquist. */
function directSpectrum(samples: Float64Array, fs: number): Float64Array {
  const n = samples.length;
  const mean = samples.reduce((sum, x) => sum + x, 0) / n;
  const w = Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1)));
  const windowPower = w.reduce((sum, v) => sum + v * v, 0);
  const out = new Float64Array(n / 2 + 1);
  for (let k = 0; k <= n / 2; k++) {
    let re = 0;
    let im = 0;
    for (let j = 0; j < n; j++) {
      const x = ((samples[j] as number) - mean) * (w[j] as number);
      re += x * Math.cos((2 * Math.PI * j * k) / n);
      im -= x * Math.sin((2 * Math.PI * j * k) / n);
    }
    const p = (re * re + im * im) / (fs * windowPower);
    out[k] = k === 0 || k === n / 2 ? p : 2 * p;
  }
  return out;
}

describe('the dashboard spectrum', () => {
  it('equals the DFT written out, for every block length the panel may use', () => {
    for (const n of [64, 256, 512]) {
      const fs = 250;
      const samples = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        samples[i] =
          40 + 30 * Math.sin((2 * Math.PI * 10 * i) / fs) + 3 * Math.cos((2 * Math.PI * 47 * i) / fs);
      }
      const expected = directSpectrum(samples, fs);
      const actual = powerSpectrum(samples, fs);
      expect(actual).toHaveLength(expected.length);
      const peak = Math.max(...expected);
      for (let k = 0; k < expected.length; k++) {
        expect(Math.abs((actual[k] as number) - (expected[k] as number)) / peak).toBeLessThan(1e-9);
      }
      // The 10 Hz sine is the peak.
      const top = actual.indexOf(Math.max(...actual));
      expect(Math.abs((top * fs) / n - 10)).toBeLessThanOrEqual(fs / n);
    }
  });
});
