import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatError } from './format-error.js';
import { parseCsv, readCsvFile } from './csv-reader.js';
import { CsvWriter, csvField, formatTimestamp } from './csv-writer.js';
import { randomData } from '../../test/formats/writer-support.js';
import { scratchDir } from '../../test/support/scratch.js';

const dir = scratchDir('csv');
let fileNo = 0;
const nextPath = (): string => join(dir, `f${fileNo++}.csv`);

describe('CSV fields and reader', () => {
  it('quotes per RFC 4180 only when needed', () => {
    expect(csvField('Fp1')).toBe('Fp1');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
  });

  it('parses quoted fields, doubled quotes and CRLF; drops a torn last line on request', () => {
    const text = 'a,"b,c","d ""e"""\r\n1,2,3\n4,5';
    expect(parseCsv(text)).toEqual([
      ['a', 'b,c', 'd "e"'],
      ['1', '2', '3'],
      ['4', '5'],
    ]);
    expect(parseCsv(text, { dropTornLastLine: true })).toEqual([
      ['a', 'b,c', 'd "e"'],
      ['1', '2', '3'],
    ]);
  });

  it('round-trips any header names', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), (names) => {
        expect(parseCsv(`${names.map(csvField).join(',')}\n`)).toEqual([names]);
      }),
    );
  });
});

describe('CsvWriter', () => {
  it('writes header and rows that read back exactly as float32, timestamps per sample', () => {
    const path = nextPath();
    const names = ['Fp1', 'O2, left', 'Cz "ref"'];
    const w = CsvWriter.open(path, { channels: names, includeTimestamps: true, sampleRate: 250 });
    const data = randomData(5, 600, new Array(3).fill({ min: -300, max: 300 }));
    const t0 = 1_763_712_000_123.25;
    w.write(data, 100, t0);
    w.write(data.subarray(300), 500); // continues the timestamps
    w.close();
    const { header, rows } = readCsvFile(path);
    expect(header).toEqual(['timestamp', ...names]);
    expect(rows).toHaveLength(600);
    rows.forEach((row, s) => {
      expect(row[0]).toBeCloseTo(t0 + s * 4, 3);
      for (let c = 0; c < 3; c++) expect(Math.fround(row[c + 1]!)).toBe(data[s * 3 + c]);
    });
    expect(readFileSync(path, 'utf8').split('\n')[2]?.startsWith('1763712000127.25,')).toBe(true);
    expect(w.rowsWritten).toBe(600);
    expect(w.durationSeconds).toBe(2.4);
  });

  it('formats timestamps with sub-millisecond decimals', () => {
    expect(formatTimestamp(1_763_712_000_000)).toBe('1763712000000');
    expect(formatTimestamp(1_763_712_000_000 + 1000 / 3)).toBe('1763712000333.333');
    expect(formatTimestamp(1_763_712_000_000.05)).toBe('1763712000000.05');
    expect(formatTimestamp(1_763_712_000_000.007)).toBe('1763712000000.007');
    fc.assert(
      fc.property(fc.double({ min: 0, max: 4e12, noNaN: true }), (ms) => {
        // Within half a microsecond (ties may round either way), at most three decimals.
        const text = formatTimestamp(ms);
        expect(Math.abs(Number(text) - ms)).toBeLessThanOrEqual(0.0005 + 1e-12 * ms);
        expect(text).toMatch(/^\d+(\.\d{0,2}[1-9])?$/);
      }),
      { numRuns: 5000 },
    );
  });

  it('holds only whole lines after each flush, and flushes by itself every second of data', () => {
    const path = nextPath();
    const w = CsvWriter.open(path, { channels: ['a', 'b'], sampleRate: 100 });
    expect(readFileSync(path, 'utf8')).toBe('a,b\n');
    const data = randomData(6, 300, [
      { min: -1, max: 1 },
      { min: -1, max: 1 },
    ]);
    w.write(data, 60);
    expect(w.rowsWritten).toBe(0);
    w.write(data.subarray(120), 60); // 120 rows ≥ 1 s at 100 Hz: flushed
    expect(w.rowsWritten).toBe(120);
    expect(statSync(path).size).toBe(w.bytesWritten);
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
    w.write(data.subarray(240), 30);
    w.flush();
    expect(readCsvFile(path).rows).toHaveLength(150);
    w.close();
  });

  it('writes without timestamps, and refuses bad use', () => {
    const path = nextPath();
    const w = CsvWriter.open(path, { channels: ['x'] });
    w.write(Float32Array.from([1.5, -2, Number.NaN]), 3);
    w.close();
    expect(readFileSync(path, 'utf8')).toBe('x\n1.5\n-2\nNaN\n');
    expect(() => CsvWriter.open(path, { channels: ['x'] })).toThrow(/EEXIST/);
    expect(() => CsvWriter.open(nextPath(), { channels: ['x'], includeTimestamps: true })).toThrow(
      FormatError,
    );
    const t = CsvWriter.open(nextPath(), { channels: ['x'], includeTimestamps: true, sampleRate: 10 });
    expect(() => {
      t.write(new Float32Array(1), 1);
    }).toThrow(/needs its timestamp/);
    expect(() => {
      t.write(new Float32Array(1), 2, 0);
    }).toThrow(/need 2 values/);
    t.close();
    writeFileSync(path, '');
    CsvWriter.open(path, { channels: ['x'], overwrite: true }).close();
    expect(readFileSync(path, 'utf8')).toBe('x\n');
  });
});
