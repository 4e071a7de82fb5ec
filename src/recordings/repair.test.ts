/**
 * Startup repair (repairRecordings): incomplete EDF/BDF get their torn record cut and count fixed,
 * incomplete CSV their torn line cut; all stay `complete: false` with what was done; recordings
 * being written and complete ones are left alone; a file beyond repair is reported, not thrown.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  openSync,
  closeSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { RecordingFile } from '../streams/executables/recorder-file.js';
import { readCsvFile } from '../formats/csv-reader.js';
import { listRecordings, repairRecordings, writeSidecar } from './index.js';
import { edflibCheck } from '../../test/support/edf-check.js';
import { CsvWriter } from '../formats/csv-writer.js';
import { EdfWriter } from '../formats/edf-writer.js';
import { mneRead } from '../../test/support/mne-check.js';
import { readJson } from '../../test/recordings/support.js';
import { scratchDir } from '../../test/support/scratch.js';

const dir = path.join(scratchDir('headsetd-repair'), 'recordings');
mkdirSync(dir, { recursive: true });

function recording(name: string, format: 'edf' | 'bdf' | 'csv', seconds: number, where = dir): RecordingFile {
  const file = RecordingFile.open({
    dir: where,
    name,
    format,
    channels: ['A', 'B'],
    sampleRate: 100,
    startTime: Date.parse('2026-11-21T07:00:00Z'),
    physicalMin: -10,
    physicalMax: 10,
    includeTimestamps: false,
    streamId: 's',
    nodeId: 'n',
  });
  const data = new Float32Array(2 * 100 * seconds).map((_, i) => Math.sin(i));
  file.write(data, 100 * seconds, 0);
  return file;
}

describe('repairRecordings', () => {
  test('repairs what crashed, leaves what is written or complete, reports what it cannot repair', () => {
    // Killed mid-record: 2 whole records flushed, a torn third one, a stale count.
    recording('torn.edf', 'edf', 2);
    appendFileSync(path.join(dir, 'torn.edf'), Buffer.alloc(700, 1));
    const fd = openSync(path.join(dir, 'torn.edf'), 'r+');
    writeSync(fd, '1       ', 236, 'latin1');
    closeSync(fd);
    recording('torn.csv', 'csv', 1);
    appendFileSync(path.join(dir, 'torn.csv'), '0.5,0.2');
    recording('live.bdf', 'bdf', 1);
    recording('done.bdf', 'bdf', 1).close();
    writeFileSync(path.join(dir, 'headless.edf'), '0       short');
    writeSidecar(dir, {
      name: 'headless.edf',
      format: 'edf',
      channels: ['A'],
      sampleRate: 100,
      created: new Date().toISOString(),
      complete: false,
    });
    writeSidecar(dir, {
      name: 'gone.csv',
      format: 'csv',
      channels: ['A'],
      sampleRate: 100,
      created: new Date().toISOString(),
      complete: false,
    });

    const results = repairRecordings(dir, new Set(['live.bdf']));
    const byName = Object.fromEntries(results.map((r) => [r.name, r]));
    expect(Object.keys(byName).sort()).toEqual(['gone.csv', 'headless.edf', 'torn.csv', 'torn.edf']);
    expect(byName['torn.edf']).toMatchObject({
      outcome: 'repaired',
      message: '2 whole records kept, a torn record of 700 bytes cut, record count fixed',
    });
    expect(byName['torn.csv']).toMatchObject({
      outcome: 'repaired',
      message: 'cut a torn last line of 7 bytes',
    });
    expect(byName['headless.edf']?.outcome).toBe('error');
    // A sidecar whose file never appeared (its recorder was killed in its first second) goes.
    expect(byName['gone.csv']?.outcome).toBe('removed');
    expect(existsSync(path.join(dir, '.gone.csv.json'))).toBe(false);

    const lib = edflibCheck(path.join(dir, 'torn.edf'), { samples: false });
    expect(lib.ok).toBe(true);
    expect(lib.datarecords).toBe(2);
    expect(readJson(path.join(dir, '.torn.edf.json'))).toMatchObject({
      complete: false,
      durationSeconds: 2,
      repaired: expect.stringContaining('record count fixed'),
    });
    expect(readCsvFile(path.join(dir, 'torn.csv')).rows).toHaveLength(100);
    expect(readJson(path.join(dir, '.torn.csv.json'))).toMatchObject({ complete: false, durationSeconds: 1 });
    expect(readJson(path.join(dir, '.live.bdf.json')).repaired).toBeUndefined();

    const listed = Object.fromEntries(listRecordings(dir).map((r) => [r.name, r]));
    expect(listed['torn.edf']).toMatchObject({ complete: false, durationSeconds: 2 });
    expect(listed['done.bdf']).toMatchObject({ complete: true, durationSeconds: 1 });
    // headless.edf cannot be read: skipped by the listing, never thrown.
    expect(listed['headless.edf']).toBeUndefined();
    expect(readFileSync(path.join(dir, 'torn.csv'), 'utf8').endsWith('\n')).toBe(true);
    rmSync(path.join(dir, 'headless.edf'));
  });
});

/** A fresh recordings directory of its own. */
function freshDir(prefix: string): string {
  const d = path.join(scratchDir(prefix), 'recordings');
  mkdirSync(d, { recursive: true });
  return d;
}

const incomplete = (name: string, format: 'edf' | 'bdf' | 'csv') => ({
  name,
  format,
  channels: ['A'],
  sampleRate: 100,
  created: new Date().toISOString(),
  complete: false,
  streamId: 's',
  nodeId: 'n',
});

describe('recordings without a data record', () => {
  test('a header-only EDF, BDF or CSV left by an earlier version is removed at repair, logged, and never listed', async () => {
    const where = freshDir('headsetd-repair-empty');
    // What earlier versions left when killed in the first second: the header synced at open (record
    // count 0), the sidecar saying complete: false, the CSV's events file with its first event.
    for (const format of ['edf', 'bdf'] as const) {
      EdfWriter.open(path.join(where, `empty.${format}`), {
        format,
        sampleRate: 100,
        channels: [{ label: 'A', physicalMin: -10, physicalMax: 10 }],
        startTime: new Date(),
      }).close();
      writeSidecar(where, incomplete(`empty.${format}`, format));
    }
    CsvWriter.open(path.join(where, 'empty.csv'), { channels: ['A'], sampleRate: 100 }).close();
    writeFileSync(path.join(where, 'empty.events.csv'), 'onset,duration,text\n0,,Recording starts\n');
    writeSidecar(where, { ...incomplete('empty.csv', 'csv'), eventsFile: 'empty.events.csv' });
    recording('kept.edf', 'edf', 1, where);
    // EDFlib refuses the header-only files: this is what must never be offered.
    expect(edflibCheck(path.join(where, 'empty.edf'), { samples: false }).ok).toBe(false);

    // Even before repair, the listing does not offer an EDF/BDF without a data record.
    const skipped: string[] = [];
    const before = listRecordings(where, (name) => skipped.push(name)).map((r) => r.name);
    expect(before).not.toContain('empty.edf');
    expect(before).not.toContain('empty.bdf');
    expect(skipped).toEqual(expect.arrayContaining(['empty.bdf', 'empty.edf']));

    const results = repairRecordings(where);
    const byName = Object.fromEntries(results.map((r) => [r.name, r]));
    for (const name of ['empty.edf', 'empty.bdf', 'empty.csv']) {
      expect(byName[name]).toMatchObject({
        outcome: 'removed',
        message: expect.stringMatching(/no data record/),
      });
    }
    expect(readdirSync(where).sort()).toEqual(['.kept.edf.json', 'kept.edf']);

    const listed = listRecordings(where).map((r) => r.name);
    expect(listed).toEqual(['kept.edf']);
    expect(edflibCheck(path.join(where, 'kept.edf'), { samples: false }).ok).toBe(true);
    expect((await mneRead([path.join(where, 'kept.edf')], 1)).map((r) => r.ok)).toEqual([true]);
  });

  test("temporary files (pending recordings, sidecars being rewritten, earlier versions' .json.<pid>.tmp) are removed unless their recording is being written", () => {
    const where = freshDir('headsetd-repair-temp');
    const stale = ['.a.edf.tmp', '.a.edf.json', '.b.csv.json.tmp', '.c.bdf.json.4242.tmp', '.live.edf.tmp'];
    writeFileSync(path.join(where, '.a.edf.tmp'), '0       ');
    writeSidecar(where, incomplete('a.edf', 'edf'));
    writeFileSync(path.join(where, '.b.csv.json.tmp'), '{');
    writeFileSync(path.join(where, '.c.bdf.json.4242.tmp'), '{"name":');
    writeFileSync(path.join(where, '.live.edf.tmp'), '0       ');
    expect(readdirSync(where).sort()).toEqual([...stale].sort());

    const results = repairRecordings(where, new Set(['live.edf']));
    expect(results.map((r) => [r.name, r.outcome]).sort()).toEqual([
      ['a.edf', 'removed'],
      ['a.edf', 'removed'],
      ['b.csv', 'removed'],
      ['c.bdf', 'removed'],
    ]);
    expect(results.find((r) => r.name === 'c.bdf')?.message).toBe(
      'removed the temporary file .c.bdf.json.4242.tmp',
    );
    // The recording being written keeps its pending file.
    expect(readdirSync(where)).toEqual(['.live.edf.tmp']);
  });
});
