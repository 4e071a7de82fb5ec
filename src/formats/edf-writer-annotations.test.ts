/**
 * Many annotations never stretch a file: however many there are, the file holds the samples
 * written and only its last record is padded; every annotation is kept at its onset. Checked with
 * MNE and EDFlib, the independent readers.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EdfReader } from './edf-reader.js';
import { EdfWriter } from './edf-writer.js';
import { edflibCheck } from '../../test/support/edf-check.js';
import { type MneResult, mneRead } from '../../test/support/mne-check.js';
import { halfStep, maxError, prng, randomData } from '../../test/formats/writer-support.js';
import { scratchDir } from '../../test/support/scratch.js';

interface Note {
  onset: number;
  text: string;
}

interface Case {
  name: string;
  format: 'edf' | 'bdf';
  channels: number;
  seconds: number;
}

const RATE = 250;
const CASES: Case[] = [
  { name: 'busy.bdf', format: 'bdf', channels: 21, seconds: 80.5 },
  { name: 'busy.edf', format: 'edf', channels: 8, seconds: 79.3 },
];

/**
 * 1,100 short markers spread over the recording (14 a second, above what one record's annotation
 * signal holds), a burst of long texts in the middle and another in the last half second.
 */
function notesFor(seconds: number, seed: number): Note[] {
  const next = prng(seed);
  const notes: Note[] = [];
  for (let i = 0; i < 1100; i++) {
    notes.push({
      onset: Math.floor(next() * seconds * RATE) / RATE,
      text: `Stimulus ${i}: cue ${'LRUD'[i % 4]}`,
    });
  }
  for (let i = 0; i < 30; i++) {
    notes.push({ onset: 40 + i / RATE, text: `Burst ${i} ${'long text '.repeat(38)}`.slice(0, 390) });
    notes.push({
      onset: seconds - 0.5 + i / RATE,
      text: `End burst ${i} ${'words '.repeat(60)}`.slice(0, 350),
    });
  }
  return notes;
}

const byOnset = (a: Note, b: Note): number =>
  a.onset - b.onset || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);

describe('a file with many annotations', () => {
  const dir = scratchDir('edf-annotations');
  const written = new Map<string, { path: string; data: Float32Array; notes: Note[]; samples: number }>();
  let mne: Map<string, MneResult>;

  beforeAll(async () => {
    CASES.forEach((c, k) => {
      const path = join(dir, c.name);
      const samples = Math.round(c.seconds * RATE);
      const ranges = Array.from({ length: c.channels }, () => ({ min: -500, max: 500 }));
      const data = randomData(k + 1, samples, ranges);
      const notes = notesFor(c.seconds, k + 7);
      const w = EdfWriter.open(path, {
        format: c.format,
        sampleRate: RATE,
        channels: ranges.map((r, i) => ({ label: `E${i + 1}`, physicalMin: r.min, physicalMax: r.max })),
        startTime: new Date('2026-11-29T08:00:00.000Z'),
      });
      // Annotations arrive with the frames that carry their onset, as the recorder hands them over.
      const pending = [...notes].sort(byOnset);
      const frame = 5;
      for (let at = 0; at < samples; at += frame) {
        const n = Math.min(frame, samples - at);
        while (pending.length > 0 && (pending[0] as Note).onset * RATE < at + n) {
          const note = pending.shift() as Note;
          w.annotate(note.onset, note.text);
        }
        w.write(data.subarray(at * c.channels, (at + n) * c.channels), n);
      }
      w.close();
      written.set(c.name, { path, data, notes, samples });
    });
    mne = new Map((await mneRead([...written.values()].map((w) => w.path))).map((r) => [r.path, r]));
  }, 120_000);

  it.each(CASES)('$name: MNE reads the samples written, only the last record padded', (c) => {
    const { path, data, samples } = written.get(c.name)!;
    const m = mne.get(path)!;
    expect(m.error).toBeUndefined();
    const r = EdfReader.open(path);
    const perRecord = r.header.signals[0]!.samplesPerRecord;
    expect(m.nTimes).toBe(Math.ceil(samples / perRecord) * perRecord);
    for (let i = 0; i < c.channels; i++) {
      expect(maxError(m.data[i]!.slice(0, samples), data, c.channels, i)).toBeLessThanOrEqual(
        halfStep(r.signals[i]!),
      );
    }
    r.close();
  });

  it.each(CASES)('$name: every annotation is there at its onset (MNE and EDFlib)', (c) => {
    const { path, notes, samples } = written.get(c.name)!;
    const expected = [...notes, { onset: samples / RATE, text: 'Recording ends' }].sort(byOnset);
    const m = mne.get(path)!;
    const fromMne = m.annotations.map((a) => ({ onset: a.onset, text: a.description })).sort(byOnset);
    expect(fromMne.map((a) => a.text)).toEqual(expected.map((e) => e.text));
    fromMne.forEach((a, i) => {
      expect(Math.abs(a.onset - expected[i]!.onset)).toBeLessThan(1e-6);
    });
    const e = edflibCheck(path, { samples: false });
    expect(e.ok).toBe(true);
    const fromEdflib = e.annotations.map((a) => ({ onset: a.onset / 1e7, text: a.text })).sort(byOnset);
    expect(fromEdflib.map((a) => a.text)).toEqual(expected.map((x) => x.text));
    expect(e.datarecords * (e.datarecordDuration / 1e7)).toBeCloseTo(Math.ceil(c.seconds), 6);
  });
});
