import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { butterworth } from './butterworth.js';
import { designFilter } from './design.js';
import { SosFilter, sosfilt } from './sos.js';

function noise(n: number, seed: number): Float64Array {
  // xorshift32: deterministic, independent of Math.random
  let s = seed >>> 0 || 1;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = (s >>> 0) / 2 ** 31 - 1;
  }
  return out;
}

/**
 * `expect(got).toEqual(expected)` for long sample arrays. Vitest's deep equality costs about a
 * microsecond per element (2 s of CPU for the cascade case below); the values are first compared
 * with Object.is, as toEqual compares numbers, and toEqual runs to judge and describe any difference.
 */
function expectSameSamples(got: Float32Array | Float64Array, expected: Float32Array | Float64Array): void {
  let same = got.length === expected.length;
  for (let i = 0; same && i < got.length; i++) same = Object.is(got[i], expected[i]);
  if (!same) expect(got).toEqual(expected);
}

const bandTypes = ['lowpass', 'highpass', 'bandpass', 'bandstop'] as const;

describe('SosFilter streaming', () => {
  it('equals one call on the concatenation for any chunking (bit for bit)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom(...bandTypes),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.integer({ min: 0, max: 97 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 2 ** 31 }),
        (order, type, channels, chunkSizes, seed) => {
          const cutoff = type === 'lowpass' || type === 'highpass' ? 12 : ([3, 40] as const);
          const sos = butterworth(order, cutoff, type, 250);
          const frames = chunkSizes.reduce((a, b) => a + b, 0);
          const x = noise(frames * channels, seed);
          const whole = new SosFilter(sos, channels).process(x, new Float64Array(x.length));
          const streaming = new SosFilter(sos, channels);
          const pieces = new Float64Array(x.length);
          let at = 0;
          for (const size of chunkSizes) {
            const n = size * channels;
            streaming.process(x.subarray(at, at + n), pieces.subarray(at, at + n));
            at += n;
          }
          expectSameSamples(pieces, whole);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('filters each interleaved channel independently, each equal to single-channel sosfilt', () => {
    const sos = designFilter({ highpass: 0.5, lowpass: 40, notch: 50 }, 250);
    const channels = 3;
    const n = 1000;
    const signals = [noise(n, 1), noise(n, 2), new Float64Array(n).fill(0.25)];
    const interleaved = new Float64Array(n * channels);
    for (let i = 0; i < n; i++)
      for (let c = 0; c < channels; c++) interleaved[i * channels + c] = signals[c]![i]!;
    new SosFilter(sos, channels).process(interleaved);
    for (let c = 0; c < channels; c++) {
      const expected = sosfilt(sos, signals[c]!);
      const got = Float64Array.from({ length: n }, (_, i) => interleaved[i * channels + c]!);
      expect(got).toEqual(expected);
    }
  });

  it('computes in float64 for Float32Array input and output, rounding only at the end', () => {
    const sos = butterworth(8, [0.5, 40], 'bandpass', 250);
    const x32 = Float32Array.from(noise(2000, 9));
    const y32 = new SosFilter(sos, 1).process(x32, new Float32Array(x32.length));
    const y64 = sosfilt(sos, Float64Array.from(x32));
    expect(y32).toBeInstanceOf(Float32Array);
    expect(Array.from(y32)).toEqual(Array.from(y64, Math.fround));
  });

  it('writes in place without output, leaves the input alone with one, and reset restarts', () => {
    const sos = butterworth(2, 10, 'lowpass', 250);
    const x = noise(100, 3);
    const copy = Float64Array.from(x);
    const f = new SosFilter(sos, 1);
    const out = f.process(x, new Float64Array(100));
    expect(x).toEqual(copy);
    f.reset();
    const again = f.process(x);
    expect(again).toBe(x);
    expect(again).toEqual(out);
  });

  it('flushes decayed state to zero so long silence never runs on subnormal numbers', () => {
    const f = new SosFilter(butterworth(4, 40, 'lowpass', 250), 1);
    const burst = new Float64Array(4000);
    burst[0] = 1;
    f.process(burst);
    expect(Math.abs(burst[3999]!)).toBeLessThan(1e-250);
    const silence = f.process(new Float64Array(100));
    expect(silence.every((v) => v === 0)).toBe(true);
  });

  it('refuses malformed sections and frames that do not divide into channels', () => {
    expect(() => new SosFilter(new Float64Array(5), 1)).toThrow(/6 values per section/);
    expect(() => new SosFilter(Float64Array.of(1, 0, 0, 2, 0, 0), 1)).toThrow(/a0 = 2/);
    expect(() => new SosFilter(Float64Array.of(1, 0, 0, 1, 0, 0), 0)).toThrow(/channels/);
    const f = new SosFilter(Float64Array.of(1, 0, 0, 1, 0, 0), 2);
    expect(() => f.process(new Float32Array(3))).toThrow(/do not divide into 2 channels/);
    expect(() => f.process(new Float32Array(4), new Float32Array(2))).toThrow(/output holds 2/);
  });

  it('equals a plain scalar Direct Form II transposed cascade bit for bit, for any channel count and block size', () => {
    // An independent reference: scipy's `_sosfilt` recursion written out, one channel at a time.
    // Channel counts on both sides of the kernel's groups of 8, and more frames than one block.
    function reference(sos: Float64Array, x: Float64Array, channels: number): Float64Array {
      const y = Float64Array.from(x);
      for (let c = 0; c < channels; c++) {
        for (let s = 0; s < sos.length / 6; s++) {
          const [b0, b1, b2, , a1, a2] = sos.subarray(s * 6, s * 6 + 6) as unknown as number[];
          let z0 = 0;
          let z1 = 0;
          for (let i = c; i < y.length; i += channels) {
            const xi = y[i]!;
            const yi = b0! * xi + z0;
            z0 = b1! * xi - a1! * yi + z1;
            z1 = b2! * xi - a2! * yi;
            y[i] = yi;
          }
        }
      }
      return y;
    }
    const sos = designFilter({ highpass: 1, lowpass: 40, order: 4, notch: 50 }, 2000);
    for (const channels of [1, 2, 7, 8, 9, 16, 21, 64]) {
      const frames = 3000;
      const x = noise(frames * channels, channels);
      const expected = reference(sos, x, channels);
      const f = new SosFilter(sos, channels);
      const got = new Float64Array(x.length);
      // Uneven pieces, some larger than the kernel's block.
      for (let at = 0, k = 0; at < frames; k++) {
        const n = Math.min(frames - at, [1, 700, 13, 1200][k % 4]!);
        f.process(
          x.subarray(at * channels, (at + n) * channels),
          got.subarray(at * channels, (at + n) * channels),
        );
        at += n;
      }
      expectSameSamples(got, expected);
    }
  });
});
