/**
 * The ssvep node through its factory, frame by frame, against scikit-learn's CCA (and scipy's
 * sub-band filters for fbcca) run on the very samples fed to it (test/support/ssvep_reference.py).
 */
import { describe, expect, test } from 'vitest';
import type { Frame } from '../../core/frame.js';
import { recordingContext } from '../../../test/sdk/fake-node-context.js';
import { prng } from '../../../test/support/prng.js';
import { referenceScores } from '../../../test/support/ssvep-reference.js';
import { createSsvep } from './ssvep.js';

const RATE = 250;
const CHANNELS = ['Fz', 'O1', 'O2', 'Pz'];

/** 12 s of EEG-like samples with a 12 Hz SSVEP (and its 2nd harmonic) at O1/O2 in noise and alpha. */
function samples(seconds: number, seed: number, ssvepHz: number | undefined): Float32Array {
  const random = prng(seed);
  const normal = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const rows = seconds * RATE;
  const out = new Float32Array(rows * CHANNELS.length);
  for (let i = 0; i < rows; i++) {
    const t = i / RATE;
    const alpha = 10 * Math.sin(2 * Math.PI * 10.2 * t + 0.3);
    const ssvep =
      ssvepHz === undefined
        ? 0
        : 5 * Math.sin(2 * Math.PI * ssvepHz * t + 1) + 2 * Math.sin(2 * Math.PI * 2 * ssvepHz * t + 2);
    CHANNELS.forEach((name, c) => {
      const weight = name.startsWith('O') ? 1 : 0.3;
      out[i * CHANNELS.length + c] = weight * (alpha + ssvep) + 4 * normal();
    });
  }
  return out;
}

/** Feeds `data` in frames of irregular sizes (1..37 rows) from t0, returns the node's output. */
function run(config: Record<string, unknown>, data: Float32Array, t0 = 1_700_000_000_000) {
  const recorded = recordingContext(config);
  const node = createSsvep(recorded.context);
  const width = CHANNELS.length;
  const rows = data.length / width;
  const sizes = [7, 1, 37, 10, 23, 5];
  let seq = 0;
  for (let at = 0, k = 0; at < rows; k++) {
    const n = Math.min(sizes[k % sizes.length] as number, rows - at);
    const frame: Frame = {
      seq: seq++,
      timestamp: t0 + (at * 1000) / RATE,
      sampleRate: RATE,
      channels: CHANNELS,
      data: data.slice(at * width, (at + n) * width),
    };
    node.onFrame?.('in', frame);
    at += n;
  }
  return recorded;
}

const FREQUENCIES = [6.66, 8.57, 12, 15];

describe('ssvep', () => {
  test.each(['cca', 'fbcca'] as const)(
    '%s: every window’s scores equal scikit-learn’s CCA on the same samples (≤ 1e-4)',
    async (method) => {
      const data = samples(12, 7, 12);
      const config = { frequencies: FREQUENCIES, window: 2, step: 0.5, harmonics: 3, method };
      const { emitted, failures } = run(config, data);
      expect(failures).toEqual([]);
      const frames = emitted.map((e) => e.frame);
      // Windows of 500 samples every 125: starts 0, 125, …, 2500.
      expect(frames).toHaveLength(21);
      const reference = await referenceScores({
        rate: RATE,
        samples: data,
        width: CHANNELS.length,
        columns: [1, 2], // default channels: the occipital ones, O1 and O2
        length: 500,
        step: 125,
        frequencies: FREQUENCIES,
        harmonics: 3,
        method,
      });
      expect(reference.scores).toHaveLength(frames.length);
      frames.forEach((frame, w) => {
        const expected = reference.scores[w] as number[];
        FREQUENCIES.forEach((_, k) => {
          expect(Math.abs((frame.data[k] as number) - (expected[k] as number))).toBeLessThanOrEqual(1e-4);
        });
      });
      const first = frames[0] as Frame;
      expect(first.channels).toEqual([
        'score.6.66Hz',
        'score.8.57Hz',
        'score.12Hz',
        'score.15Hz',
        'frequency.top',
        'frequency.detected',
      ]);
      expect(first.units).toEqual(['1', '1', '1', '1', 'Hz', 'Hz']);
      expect(first.sampleRate).toBe(2);
      // Each row is stamped with its window's first sample.
      expect(frames.map((f) => f.timestamp - 1_700_000_000_000)).toEqual(frames.map((_, w) => w * 500));
      // The 12 Hz SSVEP wins every window; detected from the third (consecutive: 3), announced once.
      expect(frames.every((f) => f.data[4] === 12)).toBe(true);
      expect(frames.map((f) => f.data[5])).toEqual([0, 0, ...frames.slice(2).map(() => 12)]);
      expect(frames.map((f) => f.annotation).filter((a) => a !== undefined)).toEqual(['SSVEP 12 Hz']);
    },
  );

  test('the channels named in the config (any case) are the ones analysed', async () => {
    const data = samples(4, 3, 8.57);
    const { emitted } = run({ frequencies: FREQUENCIES, channels: ['pz', 'o2'], window: 2, step: 1 }, data);
    const reference = await referenceScores({
      rate: RATE,
      samples: data,
      width: CHANNELS.length,
      columns: [3, 2],
      length: 500,
      step: 250,
      frequencies: FREQUENCIES,
      harmonics: 3,
      method: 'cca',
    });
    expect(emitted).toHaveLength(3);
    emitted.forEach(({ frame }, w) => {
      (reference.scores[w] as number[]).forEach((score, k) => {
        expect(Math.abs((frame.data[k] as number) - score)).toBeLessThanOrEqual(1e-4);
      });
    });
  });

  test('a window never spans a gap: after a discontinuity the next window starts at it', () => {
    const data = samples(6, 5, 12);
    const recorded = recordingContext({ frequencies: FREQUENCIES, window: 2, step: 1 });
    const node = createSsvep(recorded.context);
    const half = 3 * RATE * CHANNELS.length;
    const frame = (part: Float32Array, timestamp: number, discontinuity: boolean): Frame => ({
      seq: 0,
      timestamp,
      sampleRate: RATE,
      channels: CHANNELS,
      data: part,
      ...(discontinuity ? { discontinuity: true } : {}),
    });
    node.onFrame?.('in', frame(data.slice(0, half), 0, false));
    node.onFrame?.('in', frame(data.slice(half), 10_000, true));
    const frames = recorded.emitted.map((e) => e.frame);
    // 3 s before the gap: windows at 0 and 1 s; after it: at 10 s and 11 s, the first flagged.
    expect(frames.map((f) => f.timestamp)).toEqual([0, 1000, 10_000, 11_000]);
    expect(frames.map((f) => f.discontinuity === true)).toEqual([false, false, true, false]);
  });

  test('an input without the channels asked for fails the node with their names', () => {
    const recorded = recordingContext({ channels: ['Oz'] });
    const node = createSsvep(recorded.context);
    expect(() =>
      node.onFrame?.('in', {
        seq: 0,
        timestamp: 0,
        sampleRate: RATE,
        channels: CHANNELS,
        data: new Float32Array(4),
      }),
    ).toThrow(/Oz are not in the input/);
  });
});
