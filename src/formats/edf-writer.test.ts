import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatError } from './format-error.js';
import { EdfReader } from './edf-reader.js';
import { sanitizeTalText } from './edf-tal.js';
import { EdfWriter, type EdfWriterOptions, MAX_ANNOTATION_TEXT_BYTES } from './edf-writer.js';
import { edflibCheck } from '../../test/support/edf-check.js';
import { halfStep, holdsFloat32, maxError, randomData } from '../../test/formats/writer-support.js';
import { scratchDir } from '../../test/support/scratch.js';

const dir = scratchDir('edf-writer');
let fileNo = 0;
const nextPath = (ext: string): string => join(dir, `f${fileNo++}.${ext}`);

function channels(n: number, min = -500, max = 500): EdfWriterOptions['channels'] {
  return Array.from({ length: n }, (_, i) => ({ label: `Ch${i + 1}`, physicalMin: min, physicalMax: max }));
}

const START = new Date('2026-11-21T09:30:15.000Z');

describe('EdfWriter round trip (property)', () => {
  it('random data → writer → reader within ½ step, EDFlib accepts, annotations at their onsets', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('edf' as const, 'bdf' as const),
        fc.constantFrom(1, 7, 128, 250, 256, 500, 2048),
        fc.integer({ min: 1, max: 6 }),
        fc.double({ min: -1e5, max: 1e4, noNaN: true }),
        fc.double({ min: 1e-3, max: 1e5, noNaN: true }),
        fc.integer({ min: 1, max: 1200 }),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(fc.double({ min: 0, max: 5, noNaN: true }), fc.string({ maxLength: 30 })), {
          maxLength: 6,
        }),
        fc.integer(),
        (format, sampleRate, n, min, span, asked, chunks, marks, seed) => {
          // At most 30 s of data: each second of data costs a flush with two fdatasyncs.
          const total = Math.min(asked, 30 * sampleRate);
          const max = min + span;
          // The samples are float32: a range narrower than its step there holds none to write.
          fc.pre(holdsFloat32(min, max));
          const path = nextPath(format);
          const w = EdfWriter.open(path, {
            format,
            sampleRate,
            channels: channels(n, min, max),
            startTime: START,
          });
          const data = randomData(seed, total, new Array(n).fill({ min, max }));
          for (const [onset, text] of marks) w.annotate(onset, text);
          let at = 0;
          for (let k = 0; at < total; k++) {
            const count = Math.min(chunks[k % chunks.length] as number, total - at);
            w.write(data.subarray(at * n, (at + count) * n), count);
            at += count;
          }
          w.close();
          expect(w.clippedSamples).toBe(0);
          expect(w.durationSeconds).toBeCloseTo(total / sampleRate, 9);

          const r = EdfReader.open(path);
          expect(r.kind).toEqual({ format, variant: 'continuous' });
          expect(r.warnings).toEqual([]);
          expect(r.recordCount).toBe(Math.ceil(total / w.samplesPerRecord));
          r.signals.forEach((s, c) => {
            const read = r.readSignal(c);
            expect(maxError(read, data, n, c)).toBeLessThanOrEqual(halfStep(s));
            // Padding after the last real sample repeats it.
            const last = read[total - 1] as number;
            expect(read.subarray(total).every((v) => v === last)).toBe(true);
          });
          const notes = r.readAnnotations();
          const padded = total % w.samplesPerRecord !== 0;
          // Annotations come back in the order queued, onsets to the 100 ns time base.
          expect(notes).toHaveLength(marks.length + (padded ? 1 : 0));
          marks.forEach(([onset, text], i) => {
            expect(notes[i]?.text).toBe(sanitizeTalText(text));
            expect(Math.abs((notes[i]?.onset ?? Number.NaN) - onset)).toBeLessThanOrEqual(0.5e-7 + 1e-12);
          });
          if (padded) {
            expect(notes[marks.length]?.text).toBe('Recording ends');
            expect(notes[marks.length]?.onset).toBeCloseTo(total / sampleRate, 6);
          }
          r.close();

          const e = edflibCheck(path, { samples: false });
          expect(e.ok).toBe(true);
          expect(e.filetype).toBe(format === 'edf' ? 1 : 3);
          expect(e.annotations.length).toBe(notes.length);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('EdfWriter behaviour', () => {
  it('writes a count of 0 before the first record, then whole records matching the count after each flush', () => {
    const path = nextPath('edf');
    const w = EdfWriter.open(path, {
      format: 'edf',
      sampleRate: 100,
      channels: channels(3),
      startTime: START,
      flushIntervalSeconds: 5, // so that only the explicit flushes below write
    });
    const countField = (): string => readFileSync(path).subarray(236, 244).toString('latin1');
    expect(countField()).toBe('0       ');
    expect(statSync(path).size).toBe(w.headerBytes);
    const data = randomData(1, 1000, new Array(3).fill({ min: -500, max: 500 }));
    w.write(data, 150); // 1.5 records: one pending, half in progress
    w.flush();
    expect(countField()).toBe('1       ');
    expect(statSync(path).size).toBe(w.headerBytes + w.recordBytes);
    expect(w.bytesWritten).toBe(statSync(path).size);
    w.write(data.subarray(450), 60); // completes record 2, which waits for the cadence or a flush
    expect(w.recordsWritten).toBe(1);
    w.flush();
    expect(countField()).toBe('2       ');
    expect(statSync(path).size).toBe(w.headerBytes + 2 * w.recordBytes);
    w.close();
    expect(countField()).toBe('3       ');
  });

  it('flushes by itself once a second of data is pending (the fsync cadence)', () => {
    const path = nextPath('bdf');
    // 16 kHz × 4 BDF channels: 0.25 s records (1 s would be 192 kB), so four records make the second.
    const w = EdfWriter.open(path, {
      format: 'bdf',
      sampleRate: 16000,
      channels: channels(4),
      startTime: START,
    });
    expect(w.recordDurationSeconds).toBe(0.25);
    const data = randomData(2, 16000, new Array(4).fill({ min: -500, max: 500 }));
    w.write(data, 12000);
    expect(w.recordsWritten).toBe(0);
    w.write(data.subarray(12000 * 4), 4000);
    expect(w.recordsWritten).toBe(4);
    expect(statSync(path).size).toBe(w.headerBytes + 4 * w.recordBytes);
    w.close();
    expect(edflibCheck(path, { samples: false }).ok).toBe(true);
  });

  it('clamps out-of-range values next to the digital limits and counts them', () => {
    const path = nextPath('edf');
    const w = EdfWriter.open(path, {
      format: 'edf',
      sampleRate: 4,
      channels: channels(2, -100, 100),
      startTime: START,
    });
    w.write(Float32Array.from([150, -150, 99, -99, -100, 100, 0, 101]), 4);
    w.close();
    expect(w.clippedSamples).toBe(3);
    expect(w.noValueSamples).toBe(0);
    const r = EdfReader.open(path);
    const [a, b] = r.readRecordDigital(0);
    // The digital minimum is "no value": a value below the range clips one code above it.
    expect([a?.[0], b?.[0]]).toEqual([32767, -32767]);
    expect(r.readRecord(0)[0]?.[2]).toBeCloseTo(-100, 2); // the limit itself is a value, not clipped
    expect(b?.[3]).toBe(32767);
  });

  it('writes NaN and ±Infinity as the digital minimum, which no value maps to, and says where', () => {
    const path = nextPath('bdf');
    const w = EdfWriter.open(path, {
      format: 'bdf',
      sampleRate: 4,
      channels: channels(3, -100, 100),
      startTime: START,
    });
    const { NaN: nan, POSITIVE_INFINITY: inf, NEGATIVE_INFINITY: minf } = Number;
    w.write(Float32Array.from([nan, -100, 1, inf, 2, 3, 4, 5, 6, 7, 8, minf]), 4);
    w.close();
    expect([w.noValueSamples, w.clippedSamples]).toEqual([3, 0]);
    expect(w.takeNoValueRuns()).toEqual([
      { first: 0, last: 1, values: 2, channels: [0] },
      { first: 3, last: 3, values: 1, channels: [2] },
    ]);
    const r = EdfReader.open(path);
    const [a, b, c] = r.readRecordDigital(0);
    expect([a?.[0], a?.[1], c?.[3]]).toEqual([-8388608, -8388608, -8388608]);
    expect(b?.[0]).toBeGreaterThan(-8388608);
    expect(r.signals[0]!.physicalMin).toBeLessThan(-100);
  });

  it('carries annotations that overflow a record to the next records, losing none', () => {
    const path = nextPath('edf');
    const w = EdfWriter.open(path, {
      format: 'edf',
      sampleRate: 10,
      channels: channels(1),
      startTime: START,
    });
    for (let i = 0; i < 60; i++) w.annotate(i * 0.01, `marker number ${i} with some words`, 0.5);
    const data = new Float32Array(100);
    w.write(data, 100);
    w.close();
    const r = EdfReader.open(path);
    const notes = r.readAnnotations();
    expect(notes.map((a) => a.text)).toEqual(
      Array.from({ length: 60 }, (_, i) => `marker number ${i} with some words`),
    );
    expect(notes.every((a, i) => Math.abs(a.onset - i * 0.01) < 1e-9 && a.duration === 0.5)).toBe(true);
    expect(r.recordCount).toBe(10); // all fitted within the data's own records
    const e = edflibCheck(path, { samples: false });
    expect(e.ok).toBe(true);
    expect(e.annotations.map((a) => a.onset)).toEqual(Array.from({ length: 60 }, (_, i) => i * 100_000));
  });

  it('writes annotations queued at close into the room of earlier records, adding none', () => {
    const path = nextPath('bdf');
    const w = EdfWriter.open(path, {
      format: 'bdf',
      sampleRate: 10,
      channels: channels(1),
      startTime: START,
    });
    w.write(new Float32Array(50).fill(42), 50);
    for (let i = 0; i < 30; i++) w.annotate(4.5, `late note ${i} ${'x'.repeat(60)}`);
    w.close();
    const r = EdfReader.open(path);
    expect(r.recordCount).toBe(5);
    const notes = r.readAnnotations();
    expect(notes.filter((a) => a.text.startsWith('late note') && a.onset === 4.5)).toHaveLength(30);
    expect(notes.some((a) => a.text === 'Recording ends')).toBe(false); // no record was padded
    expect(r.readSignal(0).every((v) => Math.abs(v - 42) <= halfStep(r.signals[0]!))).toBe(true);
    expect(edflibCheck(path, { samples: false }).annotations).toHaveLength(30);
  });

  it('adds records of no value only when every record of the file is full', () => {
    const path = nextPath('bdf');
    const w = EdfWriter.open(path, {
      format: 'bdf',
      sampleRate: 10,
      channels: channels(1),
      startTime: START,
    });
    w.write(new Float32Array(10).fill(42), 10);
    for (let i = 0; i < 30; i++) w.annotate(0.5, `late note ${i} ${'x'.repeat(60)}`);
    w.close();
    const r = EdfReader.open(path);
    expect(r.recordCount).toBeGreaterThan(1);
    const notes = r.readAnnotations();
    expect(notes.filter((a) => a.text.startsWith('late note'))).toHaveLength(30);
    expect(notes.find((a) => a.text === 'Recording ends')?.onset).toBe(1);
    const values = r.readSignal(0);
    expect(values.subarray(0, 10).every((v) => Math.abs(v - 42) <= halfStep(r.signals[0]!))).toBe(true);
    expect(values.subarray(10).every((v) => v === r.signals[0]!.physicalMin)).toBe(true);
    expect(r.readRecordDigital(1)[0]?.every((d) => d === -8388608)).toBe(true);
    expect(edflibCheck(path, { samples: false }).ok).toBe(true);
  });

  it('cuts texts over the limit on a character boundary and blanks separators', () => {
    const path = nextPath('edf');
    const w = EdfWriter.open(path, {
      format: 'edf',
      sampleRate: 10,
      channels: channels(1),
      startTime: START,
    });
    w.annotate(0, 'é'.repeat(300));
    w.annotate(0.1, 'a\x14b\x00c');
    w.write(new Float32Array(10), 10);
    w.close();
    const [long, odd] = EdfReader.open(path).readAnnotations();
    expect(long?.text).toBe('é'.repeat(MAX_ANNOTATION_TEXT_BYTES / 2));
    expect(odd?.text).toBe('a b c');
  });

  it('puts the start time milliseconds in the first time-keeping TAL', () => {
    const path = nextPath('edf');
    const start = new Date('2026-11-21T09:30:15.375Z');
    const w = EdfWriter.open(path, {
      format: 'edf',
      sampleRate: 10,
      channels: channels(1),
      startTime: start,
    });
    w.annotate(1, 'one second in');
    w.write(new Float32Array(20), 20);
    w.close();
    const r = EdfReader.open(path);
    expect(r.header.startTimeField).toBe('09.30.15');
    expect(r.startTime.toISOString()).toBe(start.toISOString());
    expect(r.readAnnotations()[0]?.onset).toBe(1);
    expect(Array.from(r.recordOnsets())).toEqual([0, 1]);
    const e = edflibCheck(path, { samples: false });
    expect(e.startSubsecond).toBe(3_750_000);
    expect(e.annotations[0]?.onset).toBe(10_000_000);
  });

  it('keeps a start in fractional milliseconds (a frame’s time; a Date would drop the 0.4567 ms)', () => {
    const path = nextPath('bdf');
    const start = Date.UTC(2026, 10, 21, 9, 30, 15) + 123.4567;
    const w = EdfWriter.open(path, {
      format: 'bdf',
      sampleRate: 10,
      channels: channels(1),
      startTime: start,
    });
    w.write(new Float32Array(10), 10);
    w.close();
    const e = edflibCheck(path, { samples: false });
    expect(e.start).toEqual([2026, 11, 21, 9, 30, 15]);
    // To the double's own resolution of a time in ms since 1970 (2^-12 ms, about 2.4 ticks).
    expect(Math.abs(e.startSubsecond - 1_234_567)).toBeLessThanOrEqual(3);
  });

  it('writes EDF+ patient and recording fields and the channel attributes', () => {
    const path = nextPath('edf');
    const w = EdfWriter.open(path, {
      format: 'edf',
      sampleRate: 250,
      channels: [
        {
          label: 'Fp1',
          physicalMin: -187500.123,
          physicalMax: 187500,
          prefiltering: 'HP:0.5Hz',
          transducer: 'AgCl',
          physicalDimension: 'µV',
        },
      ],
      startTime: START,
      patient: 'subject 7',
      recording: 'eyes closed',
    });
    w.close();
    const r = EdfReader.open(path);
    expect(r.header.patient).toBe('subject_7 X X X');
    expect(r.header.recording).toBe('Startdate 21-NOV-2026 X X headsetd eyes closed');
    expect(r.header.signals[0]).toMatchObject({
      label: 'Fp1',
      transducer: 'AgCl',
      physicalDimension: 'uV',
      prefiltering: 'HP:0.5Hz',
      physicalMin: -187506, // one step below, rounded outward to fit 8 characters
      physicalMax: 187500,
      digitalMin: -32768,
      digitalMax: 32767,
    });
    expect(r.header.signals[1]).toMatchObject({ label: 'EDF Annotations', prefiltering: '', reserved: '' });
    expect(r.recordCount).toBe(0); // nothing written: no record
  });

  it('refuses bad options, an existing file, bad writes and writes after close', () => {
    const path = nextPath('edf');
    const base = { format: 'edf' as const, sampleRate: 250, channels: channels(2), startTime: START };
    const refuse = (options: EdfWriterOptions, message: RegExp): void => {
      expect(() => EdfWriter.open(nextPath('edf'), options)).toThrow(message);
      expect(() => EdfWriter.open(nextPath('edf'), options)).toThrow(FormatError);
    };
    refuse({ ...base, sampleRate: 0.5 }, /No data-record duration/);
    refuse({ ...base, channels: [] }, /1 to 639 channels/);
    refuse({ ...base, channels: channels(1, 5, 5) }, /physical minimum must be below/);
    refuse({ ...base, startTime: new Date('1970-01-01T00:00:00Z') }, /1985–2084/);
    refuse({ ...base, recordDurationSeconds: 0.003 }, /whole number of samples/);
    const w = EdfWriter.open(path, base);
    expect(() => EdfWriter.open(path, base)).toThrow(/EEXIST/);
    expect(() => {
      w.write(new Float32Array(3), 2);
    }).toThrow(/need 4 values/);
    expect(() => {
      w.annotate(Number.NaN, 'x');
    }).toThrow(FormatError);
    w.close();
    expect(() => {
      w.write(new Float32Array(2), 1);
    }).toThrow(/closed/);
    writeFileSync(path, 'x');
    EdfWriter.open(path, { ...base, overwrite: true }).close();
  });

  it.each(['edf', 'bdf'] as const)('16 kHz × 19 channels (%s) passes EDFlib with exact samples', (format) => {
    const path = nextPath(format);
    const w = EdfWriter.open(path, { format, sampleRate: 16000, channels: channels(19), startTime: START });
    const data = randomData(3, 20_000, new Array(19).fill({ min: -500, max: 500 }));
    w.write(data, 20_000);
    w.annotate(0.5, 'half');
    w.close();
    const e = edflibCheck(path);
    expect(e.ok).toBe(true);
    expect(e.datarecordDuration).toBe(format === 'edf' ? 1_000_000 : 625_000);
    const r = EdfReader.open(path);
    e.signals.forEach((s, c) => {
      const theirs = s.samples ?? [];
      expect(maxError(theirs.slice(0, 20_000), data, 19, c)).toBeLessThanOrEqual(halfStep(r.signals[c]!));
    });
  });
});
