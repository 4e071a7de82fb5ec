import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EdfReader } from './edf-reader.js';
import { EdfWriter } from './edf-writer.js';
import { type MneResult, mneRead } from '../../test/support/mne-check.js';
import { halfStep, maxError, randomData } from '../../test/formats/writer-support.js';
import { scratchDir } from '../../test/support/scratch.js';

interface Case {
  name: string;
  format: 'edf' | 'bdf';
  sampleRate: number;
  labels: string[];
  samples: number;
  start: Date;
  marks: [number, string, number | undefined][];
}

const CASES: Case[] = [
  {
    name: 'eeg250.edf',
    format: 'edf',
    sampleRate: 250,
    labels: [
      'Fp1',
      'Fp2',
      'F7',
      'F3',
      'Fz',
      'F4',
      'F8',
      'T3',
      'C3',
      'Cz',
      'C4',
      'T4',
      'T5',
      'P3',
      'Pz',
      'P4',
      'T6',
      'O1',
      'O2',
    ],
    samples: 250 * 7 + 93, // a partial last record
    start: new Date('2026-11-21T10:00:00.640Z'),
    marks: [
      [0, 'stream start', undefined],
      [2.004, 'marker: eyes closed', 1.5],
      [5.5, 'impedance snapshot', undefined],
    ],
  },
  {
    name: 'eeg2048.bdf',
    format: 'bdf',
    sampleRate: 2048,
    labels: ['O1', 'O2', 'Pz', 'Cz'],
    samples: 2048 * 3,
    start: new Date('2026-11-21T10:00:00.000Z'),
    marks: [[1.25, 'pause', undefined]],
  },
  {
    name: 'eeg16k.edf',
    format: 'edf',
    sampleRate: 16000,
    labels: ['C3', 'C4'],
    samples: 16000 + 5,
    start: new Date('2026-11-21T10:00:01.000Z'),
    marks: [[0.1, 'discontinuity', undefined]],
  },
];

describe('files written by EdfWriter, read by MNE', () => {
  const dir = scratchDir('edf-mne');
  const written = new Map<string, { data: Float32Array; path: string }>();
  let mne: Map<string, MneResult>;

  beforeAll(async () => {
    for (const c of CASES) {
      const path = join(dir, c.name);
      const ranges = c.labels.map((_, i) => ({ min: -200 - 100 * i, max: 300 + 50 * i }));
      const w = EdfWriter.open(path, {
        format: c.format,
        sampleRate: c.sampleRate,
        channels: c.labels.map((label, i) => ({
          label,
          physicalMin: ranges[i]!.min,
          physicalMax: ranges[i]!.max,
        })),
        startTime: c.start,
      });
      const data = randomData(c.samples, c.samples, ranges);
      for (const [onset, text, duration] of c.marks) w.annotate(onset, text, duration);
      // Frames of ~10 ms, as the recorder gets them.
      const frame = Math.max(1, Math.round(c.sampleRate / 100));
      for (let at = 0; at < c.samples; at += frame) {
        const n = Math.min(frame, c.samples - at);
        w.write(data.subarray(at * c.labels.length, (at + n) * c.labels.length), n);
      }
      w.close();
      written.set(c.name, { data, path });
    }
    // One python start for every file.
    mne = new Map((await mneRead([...written.values()].map((w) => w.path))).map((r) => [r.path, r]));
  }, 120_000);

  it.each(CASES)('$name: channels, rate, values within ½ step, annotations within one sample', (c) => {
    const { data, path } = written.get(c.name)!;
    const m = mne.get(path)!;
    expect(m.error).toBeUndefined();
    expect(m.ok).toBe(true);
    expect(m.chNames).toEqual(c.labels);
    expect(m.sfreq).toBe(c.sampleRate);
    expect(m.measDate).toBe(Math.floor(c.start.getTime() / 1000)); // MNE 1.3 drops sub-seconds
    const r = EdfReader.open(path);
    c.labels.forEach((_, i) => {
      expect(maxError(m.data[i]!, data, c.labels.length, i)).toBeLessThanOrEqual(halfStep(r.signals[i]!));
    });
    const period = 1 / c.sampleRate;
    const expected = c.marks.map(([onset, text, duration]) => ({ onset, text, duration: duration ?? 0 }));
    if (c.samples % r.header.signals[0]!.samplesPerRecord !== 0) {
      expected.push({ onset: c.samples / c.sampleRate, text: 'Recording ends', duration: 0 });
    }
    expect(m.annotations.map((a) => a.description)).toEqual(expected.map((e) => e.text));
    m.annotations.forEach((a, i) => {
      expect(Math.abs(a.onset - expected[i]!.onset)).toBeLessThanOrEqual(period);
      expect(a.duration).toBeCloseTo(expected[i]!.duration, 9);
    });
    r.close();
  });
});
