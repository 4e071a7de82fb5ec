import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Resampler } from './resample.js';
import { toneAmplitude } from './spectrum.js';

function sine(frames: number, rate: number, freq: number, amplitude = 1, channels = 1): Float32Array {
  const out = new Float32Array(frames * channels);
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < channels; c++)
      out[i * channels + c] = amplitude * Math.sin((2 * Math.PI * freq * i) / rate + c);
  }
  return out;
}

/** Channel c of interleaved frames, without the first `skip` frames (the filter's start-up). */
function channel(x: Float32Array, channels: number, c: number, skip = 0): Float64Array {
  const frames = x.length / channels;
  return Float64Array.from({ length: frames - skip }, (_, i) => x[(i + skip) * channels + c]!);
}

const db = (ratio: number): number => 20 * Math.log10(ratio);

describe('Resampler amplitude and anti-aliasing', () => {
  for (const [inRate, outRate] of [
    [250, 500],
    [1000, 250],
    [16000, 250],
    [250, 16000],
    [500, 256],
  ] as const) {
    it(`${inRate} → ${outRate} Hz keeps a 10 Hz sine within 0.1 dB`, () => {
      const r = new Resampler(inRate, outRate, 2);
      const y = r.process(sine(inRate * 4, inRate, 10, 1, 2));
      for (let c = 0; c < 2; c++) {
        const steady = channel(y, 2, c, 2 * r.delaySamples);
        expect(Math.abs(db(toneAmplitude(steady, outRate, 10)))).toBeLessThan(0.1);
      }
    });
  }

  it('attenuates content above the new Nyquist by at least 40 dB (1000 → 250 Hz)', () => {
    for (const f of [126, 130, 200, 310, 499]) {
      const r = new Resampler(1000, 250, 1);
      const y = channel(r.process(sine(8000, 1000, f)), 1, 0, 2 * r.delaySamples);
      // The alias of f lands at |f − k·250| inside 0..125 Hz.
      let alias = f % 250;
      if (alias > 125) alias = 250 - alias;
      expect(db(toneAmplitude(y, 250, alias)), `${f} Hz → alias ${alias} Hz`).toBeLessThan(-40);
    }
  });

  it('attenuates content above the new Nyquist by at least 40 dB (16000 → 250 Hz)', () => {
    for (const f of [130, 1000, 3010]) {
      const r = new Resampler(16000, 250, 1);
      const y = channel(r.process(sine(64000, 16000, f)), 1, 0, 2 * r.delaySamples);
      let alias = f % 250;
      if (alias > 125) alias = 250 - alias;
      expect(db(toneAmplitude(y, 250, alias)), `${f} Hz → alias ${alias} Hz`).toBeLessThan(-40);
    }
  });

  it('suppresses the image when upsampling (250 → 500 Hz: 10 Hz leaves no 240 Hz image)', () => {
    const r = new Resampler(250, 500, 1);
    const y = channel(r.process(sine(2000, 250, 10)), 1, 0, 2 * r.delaySamples);
    expect(db(toneAmplitude(y, 500, 240))).toBeLessThan(-40);
  });

  it('delays by delaySamples output samples', () => {
    const r = new Resampler(250, 1000, 1);
    const step = new Float32Array(500).fill(1);
    step.fill(0, 0, 250);
    const y = r.process(step);
    // Band-limited, the step from input 249 to 250 crosses one half at input time 249.5, i.e.
    // output sample 4 × 249.5 = 998, seen delaySamples later.
    const crossing = y.findIndex((v) => v >= 0.5);
    expect(crossing).toBeGreaterThanOrEqual(998 + r.delaySamples);
    expect(crossing).toBeLessThanOrEqual(999 + r.delaySamples);
    expect(y[y.length - 1]).toBeCloseTo(1, 5);
  });
});

describe('Resampler streaming', () => {
  it('never drifts: ⌈T·out/in⌉ frames after T input frames, and chunked output equals one call', () => {
    fc.assert(
      fc.property(
        fc.constantFrom([250, 500], [1000, 250], [500, 256], [16000, 250], [250, 250], [44100, 48000]),
        fc.array(fc.integer({ min: 0, max: 700 }), { minLength: 1, maxLength: 60 }),
        ([inRate, outRate], chunks) => {
          const channels = 3;
          const total = chunks.reduce((a, b) => a + b, 0);
          const x = sine(total, inRate, 7, 1, channels);
          const whole = new Resampler(inRate, outRate, channels).process(x);
          const streaming = new Resampler(inRate, outRate, channels);
          const parts: Float32Array[] = [];
          let at = 0;
          for (const n of chunks) {
            parts.push(streaming.process(x.subarray(at * channels, (at + n) * channels)));
            at += n;
          }
          const joined = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
          let o = 0;
          for (const p of parts) {
            joined.set(p, o);
            o += p.length;
          }
          expect(joined.length / channels).toBe(Math.ceil((total * outRate) / inRate));
          expect(joined).toEqual(whole);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('keeps channels independent and passes equal rates through unchanged', () => {
    const r = new Resampler(1000, 250, 2);
    const x = new Float32Array(4000);
    for (let i = 0; i < 2000; i++) x[i * 2] = 1; // channel 0 constant 1, channel 1 silent
    const y = r.process(x);
    for (let i = r.delaySamples * 2; i < y.length / 2; i++) {
      expect(y[i * 2]).toBeCloseTo(1, 6);
      expect(y[i * 2 + 1]).toBe(0);
    }
    const same = new Resampler(250, 250, 1);
    const z = Float32Array.of(1, 2, 3);
    expect(same.process(z)).toEqual(z);
    expect(same.delaySamples).toBe(0);
  });

  it('refuses bad rates, channel counts and ragged frames', () => {
    expect(() => new Resampler(0, 250, 1)).toThrow(/input rate 0 Hz/);
    expect(() => new Resampler(250, 250, 0)).toThrow(/channels/);
    expect(() => new Resampler(20000, 19999, 1)).toThrow(/not supported/);
    expect(() => new Resampler(250, 500, 2).process(new Float32Array(3))).toThrow(/divide into 2 channels/);
  });
});
