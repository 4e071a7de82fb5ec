/**
 * Startup repair (repairRecordings): incomplete EDF/BDF get their torn record cut and count fixed,
 * incomplete CSV their torn line cut; all stay `complete: false` with what was done; recordings
 * being written and complete ones are left alone; a file beyond repair is reported, not thrown.
 */
import {
  appendFileSync,
  mkdirSync,
  openSync,
  closeSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { RecordingFile } from '../../src/executables/recorder-file.js';
import { readCsvFile } from '../../src/formats/csv-reader.js';
import { listRecordings, repairRecordings, writeSidecar } from '../../src/recordings/index.js';
import { edflibCheck } from '../support/edf-check.js';
import { readJson, tempDataDir } from './support.js';

const dir = path.join(tempDataDir('headsetd-repair'), 'recordings');
mkdirSync(dir, { recursive: true });

function recording(name: string, format: 'edf' | 'bdf' | 'csv', seconds: number): RecordingFile {
  const file = RecordingFile.open({
    dir,
    name,
    format,
    channels: ['A', 'B'],
    sampleRate: 100,
    startTime: Date.parse('2026-11-21T07:00:00Z'),
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
    expect(byName['gone.csv']?.outcome).toBe('missing');

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
