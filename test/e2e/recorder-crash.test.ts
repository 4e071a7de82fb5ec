/**
 * kill -9 of a process recording (docs/recording.md §Crash safety): the files left on disk, after
 * repairRecordings, are valid (EDFlib, the project's reader, whole CSV lines), hold every sample
 * taken in up to at most 2 s before the kill with the generator's values, and stay
 * `complete: false`.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { readCsvFile } from '../../src/formats/csv-reader.js';
import { listRecordings, repairRecordings } from '../../src/recordings/index.js';
import { generatorSample, readEdf, readJson } from '../recordings/support.js';
import { edflibCheck } from '../support/edf-check.js';
import { testScript } from '../support/test-scripts.js';
import { scratchDir } from '../support/scratch.js';

const dataDir = scratchDir('headsetd-recorder-crash');
const RATE = 500;
const expected = (k: number) => generatorSample(k, RATE, [200, 40], [7, 31]);

/** Runs the child until every recorder has taken in `seconds` of samples, then SIGKILLs it. */
async function recordAndKill(dataDir: string, seconds: number): Promise<Record<string, number>> {
  const child = spawn(
    process.execPath,
    [...testScript(path.join(import.meta.dirname, 'recorder-crash-child.ts')), dataDir],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let last: Record<string, number> = {};
  let buffer = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the child did not record in time'));
    }, 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) last = JSON.parse(line) as Record<string, number>;
      if (Object.values(last).length === 3 && Object.values(last).every((n) => n >= seconds * RATE)) {
        clearTimeout(timer);
        child.kill('SIGKILL');
      }
    });
    child.on('exit', (_code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL') resolve(last);
      else reject(new Error(`the child exited on its own (${String(signal)})`));
    });
  });
}

describe('kill -9 while recording', () => {
  test('repair leaves valid files holding everything up to 2 s before the kill', async () => {
    const dir = path.join(dataDir, 'recordings');
    const taken = await recordAndKill(dataDir, 3.3);

    const repairs = repairRecordings(dir, new Set());
    expect(repairs.map((r) => r.name).sort()).toEqual(['crash.bdf', 'crash.csv', 'crash.edf']);
    expect(repairs.every((r) => r.outcome !== 'error')).toBe(true);

    for (const format of ['edf', 'bdf'] as const) {
      const file = path.join(dir, `crash.${format}`);
      const lib = edflibCheck(file, { samples: false });
      expect(lib.ok, `EDFlib on ${format}`).toBe(true);
      const edf = readEdf(file);
      const samples = edf.signals[0]!.length;
      expect(samples).toBe(lib.datarecords * RATE);
      expect(samples).toBeGreaterThanOrEqual((taken[format] ?? 0) - 2 * RATE);
      for (let c = 0; c < 4; c++) {
        edf.signals[c]!.forEach((v, k) => {
          if (Math.abs(v - expected(k)) > edf.halfStep[c]! * 1.0001)
            throw new Error(`${format} ch${c} sample ${k}: ${v}`);
        });
      }
      const meta = readJson(path.join(dir, `.crash.${format}.json`));
      expect(meta.complete).toBe(false);
      expect(meta.repaired).toEqual(expect.any(String));
      expect(meta.durationSeconds).toBe(lib.datarecords);
    }

    const csvFile = path.join(dir, 'crash.csv');
    expect(readFileSync(csvFile, 'utf8').endsWith('\n')).toBe(true);
    const csv = readCsvFile(csvFile);
    expect(csv.rows.length).toBeGreaterThanOrEqual((taken.csv ?? 0) - 2 * RATE);
    csv.rows.forEach((row, k) => {
      expect(row.map(Math.fround)).toEqual([expected(k), expected(k), expected(k), expected(k)]);
    });

    const listed = listRecordings(dir);
    expect(listed.map((r) => [r.name, r.complete])).toEqual([
      ['crash.bdf', false],
      ['crash.csv', false],
      ['crash.edf', false],
    ]);
    // A second repair finds nothing more to do.
    expect(repairRecordings(dir, new Set()).every((r) => r.outcome === 'unchanged')).toBe(true);
  });
});
