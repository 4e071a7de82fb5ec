/**
 * Frame `range` at its sources and through the filter (docs/recording.md §Physical range): the
 * ℓ1 norm against scipy, the generator's samples within its range even with large noise, the
 * filter's output range a true (and tight) bound.
 */
import { runPythonScript } from '../../../test/support/python.js';
import { describe, expect, test } from 'vitest';
import { designFilter, type FilterSpec } from '../../dsp/design.js';
import { createFilter } from './filter.js';
import { generatorRange, resamplerL1, sosL1Norm } from './frame-range.js';
import { Resampler } from '../../dsp/resample.js';
import { createSignalGenerator } from './signal-generator.js';
import { adcFullScaleMicrovolts, adcLsbMicrovolts } from '../../device/adc.js';
import type { Frame } from '../../core/frame.js';
import { recordingContext } from '../../../test/sdk/fake-node-context.js';
import { eventually } from '../../../test/support/wait.js';

const DESIGNS: [FilterSpec, number][] = [
  [{ highpass: 1, lowpass: 40, order: 4 }, 250],
  [{ notch: 50 }, 250],
  [{ highpass: 0.5, order: 8 }, 1000],
  [{ lowpass: 30, order: 2, notch: 60 }, 500],
];

/** ‖h‖₁ by scipy: sosfilt of an impulse over 200 000 samples (every design here decays far sooner). */
async function scipyL1(sos: Float64Array[]): Promise<number[]> {
  const script = `
import json, sys, numpy as np, scipy.signal as ss
out = []
for sos in json.loads(sys.argv[1]):
    x = np.zeros(200_000); x[0] = 1
    out.append(float(np.abs(ss.sosfilt(np.array(sos).reshape(-1, 6), x)).sum()))
print(json.dumps(out))`;
  const run = await runPythonScript(script, [JSON.stringify(sos.map((s) => Array.from(s)))]);
  return JSON.parse(run.stdout) as number[];
}

describe('range', () => {
  test('sosL1Norm is scipy’s ‖h‖₁ plus its 0.1 % margin', async () => {
    const designs = DESIGNS.map(([spec, rate]) => designFilter(spec, rate));
    const reference = await scipyL1(designs);
    designs.forEach((sos, i) => {
      const l1 = sosL1Norm(sos);
      expect(l1).toBeGreaterThanOrEqual(reference[i]!);
      expect(l1).toBeLessThanOrEqual(reference[i]! * 1.0011);
    });
  });

  test('the ADC full scale at gain 24 is ±187 500 µV, 2^23 codes of one LSB', () => {
    expect(adcFullScaleMicrovolts(24)).toBe(187_500);
    expect(adcFullScaleMicrovolts(24) / adcLsbMicrovolts(24)).toBe(2 ** 23);
  });

  test('generator frames carry Σ|amplitudes| + 6σ and never exceed it, even with large noise', async () => {
    const config = {
      sampleRate: 2000,
      amplitudes: [3, -2],
      frequencies: [10, 50],
      noise: 5,
      channels: 4,
      seed: 11,
    };
    const rc = recordingContext(config);
    const node = createSignalGenerator(rc.context);
    await node.start();
    await eventually(
      () => rc.emitted.reduce((n, e) => n + e.frame.data.length, 0) >= 4 * 1000,
      10_000,
      'half a second of samples',
    );
    await node.stop();
    const range = generatorRange(config.amplitudes, config.noise);
    expect(range).toBe(35);
    for (const { frame } of rc.emitted) {
      expect(frame.range).toBe(range);
      for (const v of frame.data) expect(Math.abs(v)).toBeLessThanOrEqual(range);
    }
  });

  test('the filter scales range by ‖h‖₁; the worst input (signs of h) nearly reaches it', () => {
    const rc = recordingContext({ highpass: 1, lowpass: 40, order: 4 });
    const node = createFilter(rc.context);
    const rate = 250;
    const sos = designFilter({ highpass: 1, lowpass: 40, order: 4 }, rate);
    // Impulse response (by feeding an impulse through a second filter node), then the input
    // x[n] = R·sign(h[N − n]) makes y[N] = R·Σ|h[k]| for k ≤ N.
    const probe = recordingContext({ highpass: 1, lowpass: 40, order: 4 });
    const impulse = new Float32Array(4000);
    impulse[0] = 1;
    createFilter(probe.context).onFrame?.('in', {
      seq: 0,
      timestamp: 0,
      sampleRate: rate,
      channels: ['a'],
      data: impulse,
    });
    const h = probe.emitted[0]!.frame.data;
    const R = 100;
    const x = new Float32Array(h.length).map((_, n) => R * Math.sign(h[h.length - 1 - n]!));
    const input: Frame = { seq: 0, timestamp: 0, sampleRate: rate, channels: ['a'], data: x, range: R };
    node.onFrame?.('in', input);
    const out = rc.emitted[0]!.frame;
    expect(out.range).toBeCloseTo(R * sosL1Norm(sos), 9);
    const peak = Math.max(...Array.from(out.data, Math.abs));
    expect(peak).toBeLessThanOrEqual(out.range!);
    expect(peak).toBeGreaterThan(out.range! * 0.99);
    // Unknown in, unknown out.
    node.onFrame?.('in', { ...input, range: undefined } as unknown as Frame);
    expect(rc.emitted[1]!.frame.range).toBeUndefined();
  });

  test('the rate converter’s bound holds for ±1 inputs of every sign pattern tried; equal rates give 1', () => {
    expect(resamplerL1(250, 250)).toBe(1);
    for (const [from, to] of [
      [500, 250],
      [250, 1000],
      [160, 250],
      [1000, 250],
    ] as const) {
      const bound = resamplerL1(from, to);
      expect(bound).toBeGreaterThan(1);
      expect(bound).toBeLessThan(3);
      let seed = 7;
      const x = new Float32Array(50_000).map(() => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % 3 === 0 ? -1 : 1;
      });
      const y = new Resampler(from, to, 1).process(x);
      let peak = 0;
      for (const v of y) peak = Math.max(peak, Math.abs(v));
      expect(peak).toBeLessThanOrEqual(bound);
      expect(peak).toBeGreaterThan(1);
    }
  });
});
