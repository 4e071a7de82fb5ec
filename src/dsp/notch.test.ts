import { describe, expect, it } from 'vitest';
import { inputFor, loadInputs, loadNotch, maxErrorAtIndices } from '../../test/fixtures/dsp/golden.js';
import { cascade, notch } from './notch.js';
import { sosfilt } from './sos.js';

const inputs = loadInputs();
const golden = loadNotch();

describe('notch matches scipy.signal.iirnotch', () => {
  it('at 50 and 60 Hz with Q 30 and 10 over every golden rate', () => {
    expect(golden.notch.length).toBeGreaterThanOrEqual(24);
    for (const c of golden.notch) {
      const label = `${c.freq} Hz Q ${c.q} at ${c.rate} Hz`;
      const sos = notch(c.freq, c.q, c.rate);
      for (let i = 0; i < 6; i++) {
        expect(Math.abs((sos[i] as number) - (c.sos[i] as number)), label).toBeLessThanOrEqual(1e-15);
      }
      const y = sosfilt(sos, inputFor(inputs, 'chirp', c.rate));
      expect(maxErrorAtIndices(y, inputs.outputIndices, c.output), label).toBeLessThanOrEqual(1e-9);
    }
  });

  it('nulls its frequency and passes DC with unit gain', () => {
    const [b0, b1, b2, , a1, a2] = notch(50, 30, 250);
    const w = (2 * Math.PI * 50) / 250;
    // |H(e^{jw})| for one section
    const num = Math.hypot(
      b0! + b1! * Math.cos(w) + b2! * Math.cos(2 * w),
      b1! * Math.sin(w) + b2! * Math.sin(2 * w),
    );
    expect(num).toBeLessThan(1e-12);
    expect((b0! + b1! + b2!) / (1 + a1! + a2!)).toBeCloseTo(1, 12);
  });

  it('refuses frequencies outside (0, Nyquist) and non-positive Q', () => {
    expect(() => notch(60, 30, 100)).toThrow(/Nyquist frequency 50 Hz/);
    expect(() => notch(0, 30, 250)).toThrow(RangeError);
    expect(() => notch(50, 0, 250)).toThrow(/Q 0/);
  });
});

describe('cascade', () => {
  it('concatenates section arrays in order', () => {
    const a = notch(50, 30, 250);
    const b = notch(60, 10, 250);
    const c = cascade(a, b);
    expect(Array.from(c)).toEqual([...a, ...b]);
    expect(cascade().length).toBe(0);
    expect(() => cascade(new Float64Array(5))).toThrow(RangeError);
  });
});
