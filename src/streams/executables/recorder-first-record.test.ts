/**
 * A recording is never visible without a data record (EDFlib and MNE refuse an EDF of 0 records):
 * it is written under a hidden name until its first record is on disk. A recorder that fails
 * before that leaves nothing behind, whatever the cause (a full disk, a name the file system
 * refuses), so a retry never finds the name taken.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { RecordingFile } from './recorder-file.js';
import { readCsvFile } from '../../formats/csv-reader.js';
import { listRecordings } from '../../recordings/index.js';
import { FatalNodeError } from '../runtime/node-errors.js';
import { edflibCheck } from '../../../test/support/edf-check.js';
import { mneRead } from '../../../test/support/mne-check.js';
import type { NodeInstance } from '../../core/node.js';
import { feed, frame, readJson, recorderHarness } from '../../../test/recordings/support.js';
import { scratchDir } from '../../../test/support/scratch.js';

const dataDir = scratchDir('headsetd-first-record');
const dir = path.join(dataDir, 'recordings');
mkdirSync(dir, { recursive: true });

/** Entries of the recordings directory that belong to `name` (file, sidecar, temporary files). */
function entriesOf(name: string): string[] {
  return readdirSync(dir)
    .filter((e) => e === name || e.startsWith(`.${name}.`) || e === name.replace(/\.csv$/, '.events.csv'))
    .sort();
}

/** Feeds frames `from` … `to - 1` (100 ms each at 250 Hz) of one continuous signal. */
function frames(node: NodeInstance, from: number, to: number): void {
  for (let seq = from; seq < to; seq++)
    node.onFrame?.(
      'in',
      frame(seq, seq * 25, 250, ['A', 'B'], 25, (k) => Math.sin(k / 5) * 50),
    );
}

async function expectReadable(name: string): Promise<void> {
  const file = path.join(dir, name);
  if (name.endsWith('.csv')) {
    expect(readCsvFile(file).rows.length).toBeGreaterThan(0);
    return;
  }
  expect(edflibCheck(file, { samples: false }).ok).toBe(true);
  expect((await mneRead([file], 1))[0]?.ok).toBe(true);
}

describe('hidden until the first record is on disk', () => {
  test.each(['edf', 'bdf', 'csv'])(
    '%s: nothing under the name (nor listed) in the first second, then a file EDFlib and MNE open',
    async (format) => {
      const name = `first.${format}`;
      const h = recorderHarness(dataDir, { filename: 'first', format });
      await h.node.start();
      frames(h.node, 0, 5);
      expect(h.info.recording).toBe(name);
      expect(entriesOf(name)).toEqual([`.${name}.json`, `.${name}.tmp`]);
      expect(listRecordings(dir).map((r) => r.name)).not.toContain(name);

      frames(h.node, 5, 11);
      const visible = [name, `.${name}.json`, ...(format === 'csv' ? ['first.events.csv'] : [])].sort();
      expect(entriesOf(name)).toEqual(visible);
      expect(listRecordings(dir).find((r) => r.name === name)).toMatchObject({ complete: false });
      await expectReadable(name);
      if (format === 'csv') {
        expect(readFileSync(path.join(dir, 'first.events.csv'), 'utf8')).toBe(
          'onset,duration,text\n0,,Recording starts\n',
        );
      }
      await h.node.stop();
      expect(readJson(path.join(dir, `.${name}.json`))).toMatchObject({
        complete: true,
        durationSeconds: 1.1,
      });
      await expectReadable(name);
    },
  );

  test('a recording stopped within its first second is published at stop, its last record padded', async () => {
    const h = recorderHarness(dataDir, { filename: 'short', format: 'edf' });
    await h.node.start();
    feed(h.node, 250, 0.3);
    expect(entriesOf('short.edf')).toEqual(['.short.edf.json', '.short.edf.tmp']);
    await h.node.stop();
    expect(entriesOf('short.edf')).toEqual(['.short.edf.json', 'short.edf']);
    expect(edflibCheck(path.join(dir, 'short.edf'), { samples: false }).datarecords).toBe(1);
    expect(readJson(path.join(dir, '.short.edf.json'))).toMatchObject({
      complete: true,
      durationSeconds: 0.3,
    });
  });
});

describe('a failure before the first record leaves nothing', () => {
  test('a full disk when the sidecar is written: the node stops for good saying so; no file, sidecar or temporary file is left, and a retry records under the same name', async () => {
    // The sidecar's temporary file leads to /dev/full: writing it fails with ENOSPC, as on a full disk.
    symlinkSync('/dev/full', path.join(dir, '.devfull.edf.json.tmp'));
    const h = recorderHarness(dataDir, { filename: 'devfull', format: 'edf' });
    await h.node.start();
    let failure: unknown;
    try {
      feed(h.node, 250, 0.2);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(FatalNodeError);
    expect((failure as Error).message).toMatch(
      /^disk full: recording devfull\.edf could not start and no file was kept \(ENOSPC, no space left on the device; [\d.]+ [kMGT]?B free in \S+recordings; its first second needs about [\d.]+ kB\); free some space/,
    );
    expect(entriesOf('devfull.edf')).toEqual([]);
    await h.node.stop();

    const retry = recorderHarness(dataDir, { filename: 'devfull', format: 'edf' });
    await retry.node.start();
    feed(retry.node, 250, 1);
    await retry.node.stop();
    expect(retry.info.recording).toBe('devfull.edf');
    await expectReadable('devfull.edf');
  });

  test('a sidecar name the file system refuses (ENAMETOOLONG) leaves no data file behind', () => {
    // 250 bytes: the pending file's name (255 bytes) fits, the sidecar's temporary name does not.
    // Recorder names are kept short enough at create; this is the last line of defence.
    const name = `${'x'.repeat(246)}.edf`;
    expect(() =>
      RecordingFile.open({
        dir,
        name,
        format: 'edf',
        channels: ['A'],
        sampleRate: 250,
        startTime: Date.now(),
        physicalMin: -100,
        physicalMax: 100,
        includeTimestamps: false,
        streamId: 's',
        nodeId: 'n',
      }),
    ).toThrow(/ENAMETOOLONG/);
    expect(entriesOf(name)).toEqual([]);
  });
});
