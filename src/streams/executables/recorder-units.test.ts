/**
 * Frames whose channels are not all in µV (a band power in µV², its decibels, an accelerometer in
 * m/s^2) are recorded with each channel's unit: EDF+/BDF+ as the signal's physical dimension, with
 * limits of that unit, and CSV as the column's name `name (unit)`. Read back by MNE and EDFlib, the
 * independent readers: the dimensions they see and the values, within one step of each file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Frame } from '../../core/frame.js';
import { edflibCheck } from '../../../test/support/edf-check.js';
import { type MneResult, mneRead } from '../../../test/support/mne-check.js';
import { FRAME_T0, recorderHarness } from '../../../test/recordings/support.js';
import { scratchDir } from '../../../test/support/scratch.js';

const RATE = 250;
const CHANNELS = ['O1', 'O1.alpha', 'O1.alphaDb', 'AccX'];
const UNITS = ['µV', 'µV²', 'dB', 'm/s^2'];
const SAMPLES = 3 * RATE;

/** Sample k of channel c, in each channel's unit (within the limits each channel gets). */
function value(k: number, c: number): number {
  const t = k / RATE;
  const v = [
    Math.sin(t * 20) * 120, // µV, frame range 500
    400 + Math.sin(t * 3) * 390, // µV², unitRanges ±1000
    26 + Math.sin(t * 3) * 20, // dB, default ±300
    9.81 + Math.sin(t * 7) * 3, // m/s^2, default ±160
  ][c] as number;
  return Math.fround(v);
}

function feed(node: { onFrame?: (port: string, frame: Frame) => void }): void {
  const per = 10;
  for (let seq = 0, at = 0; at < SAMPLES; seq++, at += per) {
    const data = new Float32Array(per * CHANNELS.length);
    for (let k = 0; k < per; k++)
      for (let c = 0; c < CHANNELS.length; c++) data[k * 4 + c] = value(at + k, c);
    node.onFrame?.('in', {
      seq,
      timestamp: FRAME_T0 + (at * 1000) / RATE,
      sampleRate: RATE,
      channels: CHANNELS,
      units: UNITS,
      data,
      range: 500,
    });
  }
}

describe('the recorder writes each channel in its unit', () => {
  const dataDir = scratchDir('headsetd-recorder-units');
  const dir = path.join(dataDir, 'recordings');
  let mne: Map<string, MneResult>;

  beforeAll(async () => {
    for (const format of ['edf', 'bdf', 'csv']) {
      const config =
        format === 'csv'
          ? { filename: `units.${format}` }
          : { filename: `units.${format}`, unitRanges: { 'µV²': 1000 } };
      const h = recorderHarness(dataDir, config);
      await h.node.start();
      feed(h.node);
      await h.node.stop();
      expect(h.failures).toEqual([]);
    }
    mne = new Map(
      (await mneRead(['edf', 'bdf'].map((f) => path.join(dir, `units.${f}`)))).map((r) => [r.path, r]),
    );
  }, 120_000);

  it.for(['edf', 'bdf'])(
    '%s: EDFlib reads uV, uV2, dB and m/s^2 and every value within one step',
    (format) => {
      const file = edflibCheck(path.join(dir, `units.${format}`), { samples: true });
      expect(file.ok).toBe(true);
      const signals = file.signals.filter((s) => !s.label.includes('Annotations'));
      expect(signals.map((s) => s.label.trim())).toEqual(CHANNELS);
      expect(signals.map((s) => s.physicalDimension.trim())).toEqual(['uV', 'uV2', 'dB', 'm/s^2']);
      expect(signals.map((s) => s.physicalMax)).toEqual([500, 1000, 300, 160]);
      signals.forEach((s, c) => {
        const step = (s.physicalMax - s.physicalMin) / (s.digitalMax - s.digitalMin);
        for (let k = 0; k < SAMPLES; k++) {
          expect(Math.abs((s.samples?.[k] as number) - value(k, c)), `${s.label} ${k}`).toBeLessThanOrEqual(
            step,
          );
        }
      });
    },
  );

  it.for(['edf', 'bdf'])(
    '%s: MNE scales uV to volts and reads uV2, dB and m/s^2 as unitless values, unscaled',
    (format) => {
      const read = mne.get(path.join(dir, `units.${format}`)) as MneResult;
      expect(read.ok, read.error).toBe(true);
      // MNE knows uV (and mV) only: it scales those to volts; any other dimension it reads as
      // "n/a" and leaves the values as the file holds them (docs/recording.md §Units).
      expect(read.units).toEqual(['µV', 'n/a', 'n/a', 'n/a']);
      expect(read.gains).toEqual([1e-6, 1, 1, 1]);
      const step = (c: number): number =>
        (2 * [500, 1000, 300, 160][c]!) / (format === 'edf' ? 65534 : 16777214);
      CHANNELS.forEach((_, c) => {
        for (let k = 0; k < SAMPLES; k++) {
          expect(Math.abs((read.data[c]?.[k] as number) - value(k, c))).toBeLessThanOrEqual(step(c) * 1.01);
        }
      });
    },
  );

  it('CSV: a channel not in µV is headed `name (unit)`, the µV one by its name; values exact', () => {
    const lines = readFileSync(path.join(dir, 'units.csv'), 'utf8').trimEnd().split('\n');
    expect(lines[0]).toBe('O1,O1.alpha (µV²),O1.alphaDb (dB),AccX (m/s^2)');
    expect(lines).toHaveLength(SAMPLES + 1);
    for (let k = 0; k < SAMPLES; k++) {
      expect(lines[k + 1]?.split(',').map((v) => Math.fround(Number(v)))).toEqual(
        CHANNELS.map((_, c) => value(k, c)),
      );
    }
    const sidecar = JSON.parse(readFileSync(path.join(dir, '.units.csv.json'), 'utf8')) as {
      units?: string[];
    };
    expect(sidecar.units).toEqual(UNITS);
  });
});
