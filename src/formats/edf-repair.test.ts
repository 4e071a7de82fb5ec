import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatError } from './format-error.js';
import { EdfReader } from './edf-reader.js';
import { repairEdf } from './edf-repair.js';
import { EdfWriter } from './edf-writer.js';
import { edflibCheck } from '../../test/support/edf-check.js';
import { CRASH_CHANNELS, CRASH_RATE, crashSample } from '../../test/formats/crash-signal.js';
import { halfStep, randomData } from '../../test/formats/writer-support.js';
import { scratchDir } from '../../test/support/scratch.js';

const dir = scratchDir('edf-repair');

describe('repairEdf', () => {
  it.each(['edf', 'bdf'] as const)(
    '%s: any prefix of a written file repairs to its whole records (property)',
    (format) => {
      // One complete file; every crash is a prefix of it, with the count the header had then.
      const original = join(dir, `original.${format}`);
      const n = 3;
      const w = EdfWriter.open(original, {
        format,
        sampleRate: 100,
        channels: Array.from({ length: n }, (_, c) => ({
          label: `C${c}`,
          physicalMin: -300,
          physicalMax: 300,
        })),
        startTime: new Date('2026-11-21T10:00:00Z'),
      });
      const total = 100 * 8 + 37;
      const data = randomData(7, total, new Array(n).fill({ min: -300, max: 300 }));
      w.annotate(0.5, 'start');
      w.write(data, total);
      w.close();
      const full = readFileSync(original);
      const { headerBytes, recordBytes } = w;
      const reference = EdfReader.open(original);

      fc.assert(
        fc.property(
          fc.integer({ min: headerBytes, max: full.length }),
          fc.integer({ min: 0, max: 9 }),
          (length, staleCount) => {
            const path = join(dir, `crash.${format}`);
            const copy = Buffer.from(full.subarray(0, length));
            // The count as a crash could leave it: at most the whole records present (written
            // before it was patched); or the final count, as a prefix copy of the final file has.
            const whole = Math.floor((length - headerBytes) / recordBytes);
            const count = staleCount <= whole ? staleCount : w.recordsWritten;
            copy.write(String(count).padEnd(8, ' '), 236, 'latin1');
            writeFileSync(path, copy);

            const result = repairEdf(path);
            expect(result.records).toBe(whole);
            expect(result.truncatedBytes).toBe(length - headerBytes - whole * recordBytes);
            expect(result.repaired).toBe(result.truncatedBytes > 0 || count !== whole);
            expect(statSync(path).size).toBe(headerBytes + whole * recordBytes);
            expect(repairEdf(path)).toEqual({ repaired: false, records: whole, truncatedBytes: 0 });

            const r = EdfReader.open(path);
            expect(r.recordCount).toBe(whole);
            expect(r.warnings).toEqual([]);
            for (let i = 0; i < whole; i++) expect(r.readRecord(i)).toEqual(reference.readRecord(i));
            r.close();
            // EDFlib refuses a file of 0 records; from one record on it must accept the repair.
            if (whole >= 1) {
              const e = edflibCheck(path, { samples: false });
              expect(e.ok).toBe(true);
              expect(e.datarecords).toBe(whole);
            }
          },
        ),
        { numRuns: 40 },
      );
      reference.close();
    },
  );

  it('rewrites a record count field that is not a number', () => {
    const path = join(dir, 'garbage-count.edf');
    const w = EdfWriter.open(path, {
      format: 'edf',
      sampleRate: 10,
      channels: [{ label: 'C', physicalMin: -1, physicalMax: 1 }],
      startTime: new Date('2026-11-21T10:00:00Z'),
    });
    w.write(new Float32Array(30), 30);
    w.close();
    const bytes = readFileSync(path);
    bytes.write('3\x00\x00x    ', 236, 'latin1');
    writeFileSync(path, bytes);
    expect(() => EdfReader.open(path)).toThrow(/number of data records/);
    expect(repairEdf(path)).toEqual({ repaired: true, records: 3, truncatedBytes: 0 });
    expect(EdfReader.open(path).recordCount).toBe(3);
  });

  it('refuses a file torn inside its header', () => {
    const path = join(dir, 'torn-header.edf');
    const w = EdfWriter.open(path, {
      format: 'edf',
      sampleRate: 10,
      channels: [{ label: 'C', physicalMin: -1, physicalMax: 1 }],
      startTime: new Date('2026-11-21T10:00:00Z'),
    });
    w.close();
    writeFileSync(path, readFileSync(path).subarray(0, 300));
    expect(() => repairEdf(path)).toThrow(FormatError);
    expect(() => repairEdf(path)).toThrow(/torn inside its header/);
  });
});

/**
 * Runs the child recorder, kills it with SIGKILL `ms` after it has reported more than 2 s of data
 * written (a moment within its writing, whatever the machine's speed: a busy one had written only
 * 300 samples 1130 ms after the first report), returns the samples it had written.
 */
function recordThenKill(path: string, format: 'edf' | 'bdf', ms: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(import.meta.dirname, '../../test/formats/crash-writer-child.ts'),
        path,
        format,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let reported = 0;
    let errors = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const last = /written (\d+)\n(?!.*written)/s.exec(chunk);
      if (last) reported = Number(last[1]);
      if (timer === undefined && reported > CRASH_RATE * 2)
        timer = setTimeout(() => child.kill('SIGKILL'), ms);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
    child.on('exit', (_code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL') resolve(reported);
      else reject(new Error(`child exited without being killed: ${errors}`));
    });
  });
}

describe('kill -9 of a recording process', () => {
  it.each([
    ['edf', 700],
    ['bdf', 1130],
  ] as const)(
    '%s killed after %d ms: repaired file passes EDFlib and keeps all but the last ≤ 2 s',
    async (format, ms) => {
      const path = join(dir, `killed.${format}`);
      const reported = await recordThenKill(path, format, ms);
      expect(reported).toBeGreaterThan(CRASH_RATE * 2);
      // Even before repair the tolerant reader opens it (whole records only).
      const before = EdfReader.open(path);
      const recordsBefore = before.recordCount;
      before.close();
      expect(repairEdf(path).records).toBeGreaterThanOrEqual(recordsBefore);
      expect(edflibCheck(path, { samples: false }).ok).toBe(true);
      const r = EdfReader.open(path);
      const samples = r.recordCount * r.signals[0]!.samplesPerRecord;
      // Data is handed over ten times faster than real time, so "2 s" is 2 s of data here.
      expect(samples).toBeGreaterThanOrEqual(reported - 2 * CRASH_RATE);
      for (let c = 0; c < CRASH_CHANNELS; c++) {
        const read = r.readSignal(c);
        let worst = 0;
        for (let s = 0; s < samples; s++)
          worst = Math.max(worst, Math.abs((read[s] as number) - crashSample(s, c)));
        expect(worst).toBeLessThanOrEqual(halfStep(r.signals[c]!));
      }
      r.close();
    },
  );
});
