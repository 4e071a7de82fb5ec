/**
 * A full disk while recording (issue 5 §Recordings API: "a full disk stops the recorder with a
 * clear lastError ... and leaves a valid file"): under a 200 KiB file-size limit the recorder goes
 * to `error` without restarts, its lastError says how much was kept, and the file is valid.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { readCsvFile } from '../../src/formats/csv-reader.js';
import { readJson, tempDataDir } from '../recordings/support.js';
import { edflibCheck } from '../support/edf-check.js';

const LIMIT_KIB = 200;

function recordUntilFull(
  dataDir: string,
  format: string,
): { state: string; metrics: { lastError: string; restarts: number } } {
  const child = path.join(import.meta.dirname, 'recorder-full-disk-child.ts');
  const out = execFileSync(
    'bash',
    [
      '-c',
      `ulimit -f ${LIMIT_KIB} && exec "$0" --import tsx "$1" "$2" "$3"`,
      process.execPath,
      child,
      dataDir,
      format,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  return JSON.parse(out) as { state: string; metrics: { lastError: string; restarts: number } };
}

describe('recorder on a full disk', () => {
  test.each(['edf', 'csv'])('%s: stops for good with a clear lastError; the file stays valid', (format) => {
    const dataDir = tempDataDir(`headsetd-recorder-full-${format}`);
    const rec = recordUntilFull(dataDir, format);
    const name = `full.${format}`;
    expect(rec.state).toBe('error');
    expect(rec.metrics.restarts).toBe(0);
    const match = /^disk full: recording (\S+) stopped after (\d+) s; the file is valid up to there$/.exec(
      rec.metrics.lastError,
    );
    expect(match, rec.metrics.lastError).not.toBeNull();
    expect(match?.[1]).toBe(name);
    const file = path.join(dataDir, 'recordings', name);
    expect(statSync(file).size).toBeLessThanOrEqual(LIMIT_KIB * 1024);
    const meta = readJson(path.join(dataDir, 'recordings', `.${name}.json`));
    expect(meta).toMatchObject({ complete: false, stoppedBy: 'disk full' });
    const seconds = Number(match?.[2]);
    if (format === 'edf') {
      const lib = edflibCheck(file, { samples: false });
      expect(lib.ok).toBe(true);
      // 8 channels at 4 kHz: records of 0.5 s (the 61 440-byte record limit).
      expect(lib.datarecordDuration).toBe(5_000_000);
      expect(lib.datarecords).toBeGreaterThan(0);
      expect(Math.round(lib.datarecords * 0.5)).toBe(seconds);
    } else {
      expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(true);
      const { header, rows } = readCsvFile(file);
      expect(header).toHaveLength(8);
      expect(rows.length).toBeGreaterThan(0);
      expect(Math.round(rows.length / 500)).toBe(seconds);
    }
  });
});
