import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FormatError } from './format-error.js';
import { readOpenBciCsv } from './openbci-csv.js';
import { fixture } from '../../test/formats/fixtures.js';
import { scratchDir } from '../../test/support/scratch.js';

const dir = scratchDir('openbci');

describe('readOpenBciCsv', () => {
  it('reads the OpenBCI GUI v6 fixture: 8 EXG channels at 250 Hz, µV, epoch timestamps', () => {
    const r = readOpenBciCsv(fixture('OpenBCI_GUI-v6-blinks-jawClench-alpha.txt'));
    expect(r.sampleRate).toBe(250);
    expect(r.board).toBe('OpenBCI_GUI$BoardCytonSerial');
    expect(r.channels).toEqual(Array.from({ length: 8 }, (_, i) => `EXG Channel ${i}`));
    // 505 lines: 4 "%" lines, the column names, 500 samples (the recording's first 2 s).
    expect(r.samples).toBe(500);
    expect(r.skippedLines).toBe(0);
    expect(Array.from(r.data.map((c) => c[0]))).toEqual([
      61379.36, 49492.89, -16597.06, -21309.75, 6703.91, -3284.86, 7223.1, 1740.11,
    ]);
    expect(r.data[7]?.[499]).toBe(1802.71);
    expect(r.timestamps?.[0]).toBe(1557936053329);
    // About 2 s of data, and the timestamps agree with the sample rate to within 1 %.
    const span = ((r.timestamps?.[r.samples - 1] ?? 0) - (r.timestamps?.[0] ?? 0)) / 1000;
    expect(span).toBeGreaterThan(1.9);
    expect(Math.abs(span - r.samples / r.sampleRate) / span).toBeLessThan(0.01);
  });

  it('reads a GUI v4 file without column names, skipping a torn last line', () => {
    const path = join(dir, 'v4.txt');
    writeFileSync(
      path,
      '%OpenBCI Raw EEG Data\n%Number of channels = 2\n%Sample Rate = 200.0 Hz\n0, 1.5, -2.25, 0.1, 0.2, 0.3\n1, 3, 4, 0.1, 0.2, 0.3\n2, 5\n',
    );
    const r = readOpenBciCsv(path);
    expect(r.sampleRate).toBe(200);
    expect(r.channels).toEqual(['EXG Channel 0', 'EXG Channel 1']);
    expect(r.data.map((c) => Array.from(c))).toEqual([
      [1.5, 3],
      [-2.25, 4],
    ]);
    expect(r.timestamps).toBeUndefined();
    expect(r.skippedLines).toBe(1);
  });

  it.each([
    ['no header', 'Sample Index, EXG Channel 0\n0, 1\n', /no "%" header lines/],
    ['no rate', '%OpenBCI Raw EXG Data\nSample Index, EXG Channel 0\n0, 1\n', /Sample Rate/],
    ['no EXG', '%Sample Rate = 250 Hz\nSample Index, Other\n0, 1\n', /no "EXG Channel" column/],
  ])('refuses a file with %s', (_, text, message) => {
    const path = join(dir, 'bad.txt');
    writeFileSync(path, text);
    expect(() => readOpenBciCsv(path)).toThrow(FormatError);
    expect(() => readOpenBciCsv(path)).toThrow(message);
  });
});
