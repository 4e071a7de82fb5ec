import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCsvFile } from './csv-reader.js';
import { EdfReader } from './edf-reader.js';
import { edflibCheck } from '../../test/support/edf-check.js';
import { scratchDir } from '../../test/support/scratch.js';

const dir = scratchDir('full-disk');

/** Runs the child under a 40 KiB file-size limit; returns its report. */
function fill(kind: 'edf' | 'csv'): { path: string; report: Record<string, unknown> } {
  const path = join(dir, `full.${kind}`);
  const child = join(import.meta.dirname, '../../test/formats/full-disk-child.ts');
  const out = execFileSync(
    'bash',
    ['-c', 'ulimit -f 40 && exec "$0" --import tsx "$1" "$2" "$3"', process.execPath, child, path, kind],
    {
      encoding: 'utf8',
    },
  );
  return { path, report: JSON.parse(out) as Record<string, unknown> };
}

describe('a write failing for lack of space', () => {
  it('EDF: the writer throws the errno, and the file stays valid at its last flush', () => {
    const { path, report } = fill('edf');
    expect(report.writeError).toBe('EFBIG');
    expect(statSync(path).size).toBe(report.bytesWritten);
    const e = edflibCheck(path, { samples: false });
    expect(e.ok).toBe(true);
    expect(e.datarecords).toBe(report.units);
    const r = EdfReader.open(path);
    expect(r.warnings).toEqual([]);
    expect(r.recordCount).toBe(report.units);
    r.close();
  });

  it('CSV: the file ends on a whole line after the failure', () => {
    const { path, report } = fill('csv');
    expect(report.writeError).toBe('EFBIG');
    expect(statSync(path).size).toBe(report.bytesWritten);
    const { header, rows } = readCsvFile(path);
    expect(header).toEqual(['a', 'b']);
    expect(rows).toHaveLength(report.units as number);
    expect(rows.every((row) => row.length === 2 && row.every(Number.isFinite))).toBe(true);
  });
});
