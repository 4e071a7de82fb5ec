import { describe, expect, it } from 'vitest';
import { inputFor, loadInputs, loadNotch, maxErrorAtIndices } from '../../test/fixtures/dsp/golden.js';
import { butterworth } from './butterworth.js';
import { designFilter } from './design.js';
import { sosfilt } from './sos.js';

const inputs = loadInputs();

describe('designFilter', () => {
  it('equals scipy: butter (band-pass when both edges) then the iirnotch section', () => {
    for (const d of loadNotch().designs) {
      const label = `${JSON.stringify(d.spec)} at ${d.rate} Hz`;
      const sos = designFilter(d.spec, d.rate);
      expect(sos.length, label).toBe(d.sos.length);
      const y = sosfilt(sos, inputFor(inputs, 'noise', d.rate));
      expect(maxErrorAtIndices(y, inputs.outputIndices, d.output), label).toBeLessThanOrEqual(1e-9);
    }
  });

  it('uses order 4 by default and a band-pass of that order for both edges', () => {
    expect(Array.from(designFilter({ highpass: 1, lowpass: 40 }, 250))).toEqual(
      Array.from(butterworth(4, [1, 40], 'bandpass', 250)),
    );
    expect(Array.from(designFilter({ lowpass: 40, order: 2 }, 250))).toEqual(
      Array.from(butterworth(2, 40, 'lowpass', 250)),
    );
  });

  it('names the offending field when the design is impossible at this rate', () => {
    expect(() => designFilter({ lowpass: 200 }, 250)).toThrow(
      'lowpass 200 Hz is at or above the Nyquist frequency 125 Hz (sample rate 250 Hz)',
    );
    expect(() => designFilter({ highpass: 0 }, 250)).toThrow(/^highpass 0 Hz/);
    expect(() => designFilter({ highpass: 1, notch: 60 }, 100)).toThrow(/^notch 60 Hz/);
    expect(() => designFilter({ highpass: 40, lowpass: 10 }, 250)).toThrow(
      /highpass 40 Hz must be below lowpass 10 Hz/,
    );
    expect(() => designFilter({ lowpass: 40, order: 9 }, 250)).toThrow(/^order 9/);
    expect(() => designFilter({ notch: 50, notchQ: -1 }, 250)).toThrow(/^notchQ -1/);
    expect(() => designFilter({}, 250)).toThrow(/at least one of highpass, lowpass or notch/);
  });
});
