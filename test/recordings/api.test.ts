/**
 * The recordings API through inject (docs/recording.md §Recordings API): listing from sidecars and headers (strange
 * files skipped, never a 500), download with content type and Content-Disposition, names that are
 * not plain refused before any file is touched, delete with its sidecar and events file, 409 while
 * a recorder writes the recording.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { registerBodyParsers } from '../../src/api/body.js';
import { installErrorHandling } from '../../src/api/error-handler.js';
import { registerOpenApi } from '../../src/api/openapi.js';
import { recordingsPlugin } from '../../src/api/recordings.js';
import { installValidation } from '../../src/api/validation.js';
import { RecordingFile } from '../../src/streams/executables/recorder-file.js';
import { CsvWriter } from '../../src/formats/csv-writer.js';
import { EdfWriter } from '../../src/formats/edf-writer.js';
import { scratchDir } from '../support/scratch.js';

const dataDir = scratchDir('headsetd-recordings-api');
const dir = path.join(dataDir, 'recordings');
const active = new Set<string>();
let app: FastifyInstance;

const START = Date.parse('2026-11-21T09:00:00.250Z');

function makeFiles(): void {
  mkdirSync(dir, { recursive: true });
  const spec = {
    dir,
    channels: ['C3', 'C4'],
    sampleRate: 250,
    startTime: START,
    physicalMin: -100,
    physicalMax: 100,
    includeTimestamps: true,
    streamId: 's',
    nodeId: 'n',
  };
  const data = new Float32Array(2 * 500).map((_, i) => Math.sin(i / 10) * 50);
  const edf = RecordingFile.open({ ...spec, name: 'done.edf', format: 'edf' });
  edf.write(data, 500, START);
  edf.close();
  const csv = RecordingFile.open({ ...spec, name: 'notes.csv', format: 'csv' });
  csv.write(data, 500, START);
  csv.annotate(1, 'eyes closed');
  csv.close();
  // Being written: header count patched, sidecar complete: false.
  const live = RecordingFile.open({ ...spec, name: 'live.bdf', format: 'bdf' });
  live.write(data, 400, START); // 1.6 s: one whole record flushed
  // A foreign EDF and a foreign CSV without sidecars.
  const foreign = EdfWriter.open(path.join(dir, 'foreign.edf'), {
    format: 'edf',
    sampleRate: 100,
    channels: [{ label: 'Pz', physicalMin: -10, physicalMax: 10 }],
    startTime: new Date(START),
  });
  foreign.write(new Float32Array(300), 300);
  foreign.close();
  const plain = CsvWriter.open(path.join(dir, 'plain.csv'), {
    channels: ['O1'],
    sampleRate: 50,
    includeTimestamps: true,
  });
  plain.write(new Float32Array(100), 100, START);
  plain.close();
  // Strange things: never listed, never a 500.
  writeFileSync(path.join(dir, 'readme.txt'), 'not a recording');
  writeFileSync(path.join(dir, 'broken.edf'), '0       garbage');
  mkdirSync(path.join(dir, 'folder.edf'));
  writeFileSync(path.join(dataDir, 'secret.edf'), 'outside');
  symlinkSync(path.join(dataDir, 'secret.edf'), path.join(dir, 'link.edf'));
  active.add('live.bdf');
}

beforeAll(async () => {
  makeFiles();
  app = Fastify({ logger: false });
  installErrorHandling(app);
  installValidation(app);
  await registerBodyParsers(app);
  await registerOpenApi(app, '0.0.0-test');
  await app.register(async (scope) => {
    recordingsPlugin(scope, { dataDir, activeRecordings: () => active });
  });
  await app.ready();
});

afterAll(async () => {
  await app.close();
});

const get = (url: string) => app.inject({ method: 'GET', url });
const del = (url: string) => app.inject({ method: 'DELETE', url });
const errorCode = (body: string) => (JSON.parse(body) as { error: { code: string } }).error.code;

describe('GET /system/recordings', () => {
  test('lists recordings from sidecars and headers, skipping what is not one', async () => {
    const response = await get('/system/recordings');
    expect(response.statusCode).toBe(200);
    const body = JSON.parse(response.body) as { success: boolean; recordings: Record<string, unknown>[] };
    expect(body.success).toBe(true);
    const byName = Object.fromEntries(body.recordings.map((r) => [r.name, r]));
    expect(Object.keys(byName).sort()).toEqual([
      'done.edf',
      'foreign.edf',
      'live.bdf',
      'notes.csv',
      'plain.csv',
    ]);
    expect(byName['done.edf']).toEqual({
      name: 'done.edf',
      format: 'edf',
      bytes: readFileSync(path.join(dir, 'done.edf')).length,
      created: '2026-11-21T09:00:00.250Z',
      durationSeconds: 2,
      channels: ['C3', 'C4'],
      sampleRate: 250,
      complete: true,
    });
    // Being written: the header's count (one flushed record of 1 s) says how long it is so far.
    expect(byName['live.bdf']).toMatchObject({ format: 'bdf', complete: false, durationSeconds: 1 });
    expect(byName['notes.csv']).toMatchObject({
      format: 'csv',
      complete: true,
      durationSeconds: 2,
      sampleRate: 250,
    });
    expect(byName['foreign.edf']).toMatchObject({
      format: 'edf',
      channels: ['Pz'],
      sampleRate: 100,
      durationSeconds: 3,
      complete: true,
      created: '2026-11-21T09:00:00.250Z',
    });
    expect(byName['plain.csv']).toMatchObject({
      format: 'csv',
      channels: ['O1'],
      sampleRate: 50,
      complete: true,
    });
    expect(byName['plain.csv']?.durationSeconds).toBeCloseTo(2, 1);
  });
});

describe('GET /system/recordings/{name}', () => {
  test('EDF downloads as an octet stream attachment with its exact bytes', async () => {
    const response = await get('/system/recordings/done.edf');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="done.edf"; filename*=UTF-8''done.edf`,
    );
    expect(response.rawPayload.equals(readFileSync(path.join(dir, 'done.edf')))).toBe(true);
  });

  test('CSV downloads as text/csv', async () => {
    const response = await get('/system/recordings/notes.csv');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/csv/);
    expect(response.body).toBe(readFileSync(path.join(dir, 'notes.csv'), 'utf8'));
    const events = await get('/system/recordings/notes.events.csv');
    expect(events.body).toContain('1,,eyes closed');
  });

  test.each([
    ['%2E%2E%2Fsecret.edf', 400],
    ['..%2F..%2Fetc%2Fpasswd', 400],
    ['.done.edf.json', 400],
    ['a%5Cb.edf', 400],
    ['missing.edf', 404],
    ['folder.edf', 404],
    ['link.edf', 404],
  ])('%s → %i, nothing outside the directory served', async (name, status) => {
    const response = await get(`/system/recordings/${name}`);
    expect(response.statusCode).toBe(status);
    expect(errorCode(response.body)).toBe(status === 400 ? 'invalid_request' : 'recording_not_found');
    expect(response.body).not.toContain('outside');
  });
});

describe('DELETE /system/recordings/{name}', () => {
  test('409 while a recorder writes it; the file stays', async () => {
    const response = await del('/system/recordings/live.bdf');
    expect(response.statusCode).toBe(409);
    expect(errorCode(response.body)).toBe('invalid_state');
    expect(existsSync(path.join(dir, 'live.bdf'))).toBe(true);
  });

  test('removes the file, its sidecar and its events file; then 404', async () => {
    const response = await del('/system/recordings/notes.csv');
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ success: true });
    for (const name of ['notes.csv', '.notes.csv.json', 'notes.events.csv'])
      expect(existsSync(path.join(dir, name))).toBe(false);
    expect((await del('/system/recordings/notes.csv')).statusCode).toBe(404);
    expect((await del('/system/recordings/..%2Fsecret.edf')).statusCode).toBe(400);
    expect(existsSync(path.join(dataDir, 'secret.edf'))).toBe(true);
  });

  test('the routes are in the OpenAPI document', async () => {
    const doc = JSON.parse((await get('/openapi.json')).body) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths['/system/recordings/{name}'] ?? {}).sort()).toEqual(['delete', 'get']);
    expect(doc.paths['/system/recordings']?.get).toBeDefined();
  });
});
