/**
 * Samples that are not numbers (NaN, +Infinity, −Infinity: an LSL source's gaps, a sensor's
 * failure) are recorded as the format's "no value", never as a plausible voltage: EDF/BDF the
 * digital minimum with an annotation naming the channels and the span, CSV the texts `NaN`,
 * `Infinity`, `-Infinity`. Checked with MNE and EDFlib, the independent readers, and Python.
 */
import { runPythonScript } from '../../../test/support/python.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Frame } from '../../core/frame.js';
import { EdfReader } from '../../formats/edf-reader.js';
import { edflibCheck } from '../../../test/support/edf-check.js';
import { type MneResult, mneRead } from '../../../test/support/mne-check.js';
import { FRAME_T0, type Harness, recorderHarness } from '../../../test/recordings/support.js';
import { scratchDir } from '../../../test/support/scratch.js';

const RATE = 250;
const CHANNELS = ['Fp1', 'Cz', 'O1', 'O2'];
const SAMPLES = 7 * RATE + 40; // a partial last record
const { NaN: NAN, POSITIVE_INFINITY: INF, NEGATIVE_INFINITY: MINUS_INF } = Number;

/**
 * Sample k of channel c: in range (±500 µV, the limits included), except NaN on Fp1 from 0.5 s
 * to 1 s, +Infinity on Cz at 2.5 s and 2.8 s, −Infinity on O1 from 4.5 s to 4.6 s, and no value
 * on every channel at 6 s.
 */
function value(k: number, c: number): number {
  const t = k / RATE;
  if (k === 6 * RATE) return [NAN, INF, MINUS_INF, NAN][c] as number;
  if (c === 0 && t >= 0.5 && t < 1) return NAN;
  if (c === 1 && (k === 2.5 * RATE || k === 2.8 * RATE)) return INF;
  if (c === 2 && t >= 4.5 && t < 4.6) return MINUS_INF;
  if (k === 10) return c % 2 === 0 ? -500 : 500;
  return Math.fround(Math.sin(k / 7 + c) * 480);
}

const noValue = (k: number, c: number): boolean => !Number.isFinite(value(k, c));

const EXPECTED_NOTES = [
  { onset: 0.5, duration: 0.5, text: 'No value (NaN or infinite): 125 value(s) on Fp1' },
  { onset: 2.5, duration: 0.304, text: 'No value (NaN or infinite): 2 value(s) on Cz' },
  { onset: 4.5, duration: 0.1, text: 'No value (NaN or infinite): 25 value(s) on O1' },
  { onset: 6, duration: 0.004, text: 'No value (NaN or infinite): 4 value(s) on Fp1 Cz O1 O2' },
];

function feedFrames(h: Harness): void {
  const per = RATE / 25; // 40 ms frames
  for (let seq = 0, at = 0; at < SAMPLES; seq++, at += per) {
    const n = Math.min(per, SAMPLES - at);
    const data = new Float32Array(n * CHANNELS.length);
    for (let k = 0; k < n; k++) for (let c = 0; c < CHANNELS.length; c++) data[k * 4 + c] = value(at + k, c);
    const frame: Frame = {
      seq,
      timestamp: FRAME_T0 + (at * 1000) / RATE,
      sampleRate: RATE,
      channels: CHANNELS,
      data,
      range: 500,
    };
    h.node.onFrame?.('in', frame);
  }
}

describe('the recorder and samples of no value', () => {
  const dataDir = scratchDir('headsetd-recorder-no-value');
  const dir = path.join(dataDir, 'recordings');
  const harnesses = new Map<string, Harness>();
  let mne: Map<string, MneResult>;

  beforeAll(async () => {
    for (const format of ['edf', 'bdf', 'csv']) {
      const h = recorderHarness(dataDir, { filename: `gaps.${format}` });
      await h.node.start();
      feedFrames(h);
      await h.node.stop();
      harnesses.set(format, h);
    }
    const files = ['edf', 'bdf'].map((f) => path.join(dir, `gaps.${f}`));
    mne = new Map((await mneRead(files)).map((r) => [r.path, r]));
  }, 120_000);

  it.each(['edf', 'bdf'])('%s: counted as no value, not as clipping, and warned of once', (format) => {
    const h = harnesses.get(format)!;
    expect(h.failures).toEqual([]);
    expect(h.info).toMatchObject({ clippedSamples: 0, noValueSamples: 156 });
    expect(h.metrics).toEqual({ clippedSamples: 0, noValueSamples: 156 });
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]).toMatch(/^recording "gaps\.[a-z]+" has samples of no value .*first at 0\.500 s/);
  });

  it.each(['edf', 'bdf'])(
    '%s: MNE reads values in range exact, no value at the digital minimum, the annotations',
    (format) => {
      const file = path.join(dir, `gaps.${format}`);
      const m = mne.get(file)!;
      expect(m.error).toBeUndefined();
      const reader = EdfReader.open(file);
      const signals = reader.signals.slice(0, CHANNELS.length);
      reader.close();
      signals.forEach((s, c) => {
        expect(s.digitalMin).toBe(format === 'edf' ? -32768 : -8388608);
        const step = (s.physicalMax - s.physicalMin) / (s.digitalMax - s.digitalMin);
        expect(s.physicalMin).toBeLessThan(-500); // −500 µV itself keeps a code above "no value"
        for (let k = 0; k < SAMPLES; k++) {
          const read = m.data[c]![k]!;
          if (noValue(k, c)) expect(Math.abs(read - s.physicalMin)).toBeLessThan(step * 1e-6);
          else expect(Math.abs(read - value(k, c))).toBeLessThanOrEqual(step / 2 + 1e-9);
        }
      });
      const notes = m.annotations.filter((a) => a.description.startsWith('No value'));
      expect(notes.map((a) => a.description)).toEqual(EXPECTED_NOTES.map((n) => n.text));
      notes.forEach((a, i) => {
        expect(a.onset).toBeCloseTo(EXPECTED_NOTES[i]!.onset, 6);
        expect(a.duration).toBeCloseTo(EXPECTED_NOTES[i]!.duration, 6);
      });
      // Only the last record is padded.
      expect(m.nTimes).toBe(Math.ceil(SAMPLES / RATE) * RATE);
    },
  );

  it.each(['edf', 'bdf'])('%s: EDFlib reads the same, digital minimum included', (format) => {
    const e = edflibCheck(path.join(dir, `gaps.${format}`));
    expect(e.ok).toBe(true);
    e.signals.slice(0, CHANNELS.length).forEach((s, c) => {
      const step = (s.physicalMax - s.physicalMin) / (s.digitalMax - s.digitalMin);
      for (let k = 0; k < SAMPLES; k++) {
        const read = s.samples![k]!;
        if (noValue(k, c)) expect(Math.abs(read - s.physicalMin)).toBeLessThan(step * 1e-6);
        else expect(Math.abs(read - value(k, c))).toBeLessThanOrEqual(step / 2 + 1e-9);
      }
    });
    const notes = e.annotations.filter((a) => a.text.startsWith('No value'));
    expect(notes.map((a) => [a.onset / 1e7, a.duration / 1e7, a.text])).toEqual(
      EXPECTED_NOTES.map((n) => [n.onset, n.duration, n.text]),
    );
  });

  it('csv: NaN, Infinity and -Infinity as such, read back by Python as float', async () => {
    const text = readFileSync(path.join(dir, 'gaps.csv'), 'utf8');
    const read = await runPythonScript(
      'import csv,json,sys; r=list(csv.reader(open(sys.argv[1]))); print(json.dumps([[repr(float(v)) for v in row] for row in r[1:]]))',
      [path.join(dir, 'gaps.csv')],
    );
    expect(read.stderr).toBe('');
    const rows = JSON.parse(read.stdout) as string[][];
    expect(rows).toHaveLength(SAMPLES);
    expect(rows[6 * RATE]).toEqual(['nan', 'inf', '-inf', 'nan']);
    expect(rows[125]?.[0]).toBe('nan');
    expect(rows[10]).toEqual(['-500.0', '500.0', '-500.0', '500.0']);
    expect(text.split('\n')[6 * RATE + 1]).toBe('NaN,Infinity,-Infinity,NaN');
  });
});
