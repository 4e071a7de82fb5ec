/**
 * A full disk while recording (docs/recording.md §Crash safety: a full disk stops the recorder with
 * a clear lastError and leaves a valid file): under a 100 KiB file-size limit the recorder goes
 * to `error` without restarts, its lastError says how much was kept, and the file is valid. After
 * a restart on a disk with no room for a new file, lastError still says the disk is full (not the
 * pipe that overflowed behind the stopped recorder), and no file or temporary file is left.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { readCsvFile } from '../../src/formats/csv-reader.js';
import type { RecordingRepair } from '../../src/recordings/index.js';
import type { RuntimeEvent, RuntimeNodeStatus } from '../../src/streams/runtime/stream-runtime.js';
import { readJson } from '../recordings/support.js';
import { edflibCheck } from '../support/edf-check.js';
import { mneRead } from '../support/mne-check.js';
import { testScript } from '../support/test-scripts.js';
import { scratchDir } from '../support/scratch.js';

const LIMIT_KIB = 100;

interface ChildReport {
  rec: RuntimeNodeStatus;
  events: RuntimeEvent[];
  repairs: RecordingRepair[];
}

function recordUntilFull(
  dataDir: string,
  format: string,
  options: { limitKiB?: number; capacity?: number } = {},
): ChildReport {
  const child = path.join(import.meta.dirname, 'recorder-full-disk-child.ts');
  const out = execFileSync(
    'bash',
    [
      '-c',
      `ulimit -f ${options.limitKiB ?? LIMIT_KIB} && exec "$0" "$1" "$2" "$3" "$4" $5`,
      process.execPath,
      ...testScript(child),
      dataDir,
      format,
      options.capacity === undefined ? '' : String(options.capacity),
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  return JSON.parse(out) as ChildReport;
}

describe('recorder on a full disk', () => {
  /** An EDF recording stopped by the full disk: the first test reads it, the restart test starts from a copy. */
  let fullEdf: { dataDir: string; report: ChildReport };
  beforeAll(() => {
    const dataDir = scratchDir('headsetd-recorder-full-edf');
    fullEdf = { dataDir, report: recordUntilFull(dataDir, 'edf') };
  });

  test.each(['edf', 'csv'])('%s: stops for good with a clear lastError; the file stays valid', (format) => {
    const dataDir = format === 'edf' ? fullEdf.dataDir : scratchDir(`headsetd-recorder-full-${format}`);
    const { rec } = format === 'edf' ? fullEdf.report : recordUntilFull(dataDir, format);
    const name = `full.${format}`;
    expect(rec.state).toBe('error');
    expect(rec.metrics.restarts).toBe(0);
    const match =
      /^disk full: recording (\S+) stopped after (\d+) s; the file is valid up to there \(EFBIG, the file size limit was reached; [\d.]+ [kMGT]?B free in \S+; the recording needs about [\d.]+ kB per second\)$/.exec(
        rec.metrics.lastError ?? '',
      );
    expect(match, rec.metrics.lastError ?? undefined).not.toBeNull();
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

  test('after a restart with no room for a new file: lastError says disk full (not the pipe overflow behind it), no restart loop, nothing left', async () => {
    const dataDir = scratchDir('headsetd-recorder-full-restart');
    const dir = path.join(dataDir, 'recordings');
    expect(fullEdf.report.rec.state).toBe('error');
    cpSync(fullEdf.dataDir, dataDir, { recursive: true });
    // The restart: the same stream continues in full-2.edf, on a disk without room even for its
    // 2.5 kB header (a 2 KiB limit); a block pipe of capacity 2 overflows behind the stopped node.
    const { rec, events, repairs } = recordUntilFull(dataDir, 'edf', { limitKiB: 2, capacity: 2 });
    expect(repairs.map((r) => r.name)).toEqual(['full.edf']);
    expect(rec.state).toBe('error');
    expect(rec.metrics.restarts).toBe(0);
    const lastError = rec.metrics.lastError ?? '';
    expect(lastError).toMatch(
      /^disk full: recording full-2\.edf could not start and no file was kept \(EFBIG, the file size limit was reached; [\d.]+ [kMGT]?B free in \S+recordings; its first second needs about 6\d\.\d kB\); free some space/,
    );
    expect(rec.metrics.framesDropped).toBeGreaterThan(0);
    // The runtime's node_crashed event (a system event in the service) says the same.
    expect(events).toEqual([
      {
        type: 'node_crashed',
        streamId: expect.any(String),
        nodeId: 'rec',
        message: lastError,
        willRestart: false,
      },
    ]);
    // No file, sidecar or temporary file of full-2.edf; the first recording is untouched and readable.
    expect(readdirSync(dir).sort()).toEqual(['.full.edf.json', 'full.edf']);
    expect(edflibCheck(path.join(dir, 'full.edf'), { samples: false }).ok).toBe(true);
    expect((await mneRead([path.join(dir, 'full.edf')], 1))[0]?.ok).toBe(true);
  });
});
