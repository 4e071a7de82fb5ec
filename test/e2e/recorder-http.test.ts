/**
 * The whole path over HTTP (inject) with a real StreamManager and WorkerRuntime: a recorder
 * stream created and started through the Streams API, markers posted as form fields and as JSON,
 * the recording listed as incomplete and undeletable (409) while written, then complete, with the
 * markers in the file, and deletable. `activeRecordings` is computed the way the service does.
 */
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { recordingsPlugin } from '../../src/api/recordings.js';
import { activeRecordingNames } from '../../src/recordings/index.js';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { openDatabase } from '../../src/platform/store/database.js';
import { StreamManager } from '../../src/streams/manager.js';
import { StreamStore } from '../../src/streams/store.js';
import { readEdf } from '../recordings/support.js';
import { edflibCheck } from '../support/edf-check.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

const dataDir = scratchDir('headsetd-recorder-http');
const ID = '0c5d7f5e-2b0a-4c1e-9d3f-5a6b7c8d9e0f';
let app: FastifyInstance;
let manager: StreamManager;
let runtime: WorkerRuntime;
let db: ReturnType<typeof openDatabase>;

beforeAll(async () => {
  db = openDatabase(dataDir);
  runtime = new WorkerRuntime({ workerEntry: STREAM_HOST, dataDir, executablesDirs: [] });
  manager = new StreamManager(new StreamStore(db), runtime, { context: { executablesDirs: [] } });
  const m = manager;
  app = await createApp({
    manager,
    logger: pino({ level: 'silent' }),
    version: '0.0.0-test',
    security: {
      token: undefined,
      allowedOrigins: [],
      allowedHosts: [],
      hostname: () => 'headset',
      port: () => 42069,
    },
    extraPlugins: [
      (scope) => {
        recordingsPlugin(scope, {
          dataDir,
          activeRecordings: () =>
            activeRecordingNames(m.list().map((entry) => runtime.status(entry.definition.id))),
        });
      },
    ],
  });
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await manager.close();
  await runtime.close();
  db.close();
});

const form = (url: string, fields: Record<string, string>) =>
  app.inject({
    method: 'POST',
    url,
    payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
const json = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) =>
  app.inject({
    method,
    url,
    ...(body === undefined
      ? {}
      : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });

describe('recording over HTTP', () => {
  test('markers by form and JSON; listed, 409 while written, then complete and deletable', async () => {
    const created = await json('POST', '/stream/streams', {
      id: ID,
      meta: { name: 'record' },
      nodes: [
        {
          id: 'gen',
          type: 'EXECUTABLE_PRODUCER',
          executable: 'signal-generator',
          config: {
            sampleRate: 250,
            amplitudes: [40],
            frequencies: [6],
            channels: 2,
            channelNames: ['C3', 'C4'],
          },
        },
        {
          id: 'rec',
          type: 'EXECUTABLE_CONSUMER',
          executable: 'recorder',
          config: { filename: 'http-session', format: 'edf' },
        },
      ],
      pipes: [{ id: 'p', source: 'gen', destination: 'rec', policy: 'block' }],
    });
    expect(created.statusCode, created.body).toBe(200);
    expect((await form(`/stream/streams/${ID}/signal`, { signal: 'start' })).statusCode).toBe(200);
    await eventually(
      () => (runtime.status(ID)?.nodes.rec?.metrics.samplesProcessed ?? 0) >= 250,
      15_000,
      'a second recorded',
    );

    const marker = await form(`/stream/streams/${ID}/nodes/rec/signal`, {
      signal: 'marker',
      text: 'eyes open',
    });
    expect(marker.statusCode, marker.body).toBe(200);
    expect(JSON.parse(marker.body)).toEqual({ id: 'rec', streamId: ID, signal: 'marker', success: true });
    expect(
      (
        await json('POST', `/stream/streams/${ID}/nodes/rec/signal`, {
          signal: 'marker',
          text: 'eyes closed',
        })
      ).statusCode,
    ).toBe(200);
    const empty = await json('POST', `/stream/streams/${ID}/nodes/rec/signal`, { signal: 'marker' });
    expect(empty.statusCode).toBe(422);

    const listing = JSON.parse((await json('GET', '/system/recordings')).body) as {
      recordings: Record<string, unknown>[];
    };
    expect(listing.recordings).toEqual([
      expect.objectContaining({
        name: 'http-session.edf',
        format: 'edf',
        complete: false,
        channels: ['C3', 'C4'],
        sampleRate: 250,
      }),
    ]);
    const busy = await json('DELETE', '/system/recordings/http-session.edf');
    expect(busy.statusCode).toBe(409);

    expect((await form(`/stream/streams/${ID}/signal`, { signal: 'stop' })).statusCode).toBe(200);
    await manager.settle();
    const after = JSON.parse((await json('GET', '/system/recordings')).body) as {
      recordings: Record<string, unknown>[];
    };
    expect(after.recordings[0]).toMatchObject({ name: 'http-session.edf', complete: true });

    const file = path.join(dataDir, 'recordings', 'http-session.edf');
    const texts = readEdf(file).annotations.map((a) => a.text);
    expect(texts).toEqual(
      expect.arrayContaining(['Recording starts', 'eyes open', 'eyes closed', 'Recording ends']),
    );
    expect(edflibCheck(file, { samples: false }).ok).toBe(true);
    const download = await json('GET', '/system/recordings/http-session.edf');
    expect(download.headers['content-disposition']).toContain('filename="http-session.edf"');
    expect((await json('DELETE', '/system/recordings/http-session.edf')).statusCode).toBe(200);
    expect(JSON.parse((await json('GET', '/system/recordings')).body)).toEqual({
      success: true,
      recordings: [],
    });
  });
});
