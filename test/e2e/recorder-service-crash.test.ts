/**
 * A researcher's worst case, on the real service: `kill -9` in the middle of a recording. The file
 * on disk must pass EDFlib's strict check holding everything up to at most 2 s before the kill; the
 * restarted service lists it as incomplete, and the stream, which was running, records on into a
 * new file without touching the old one. A kill in a recording's first second leaves no file that
 * EDFlib or MNE refuses, and the listing never offers one.
 */
import { readdirSync } from 'node:fs';
import { afterEach, expect, test } from 'vitest';
import WebSocket from 'ws';
import path from 'node:path';
import { readCsvFile } from '../../src/formats/csv-reader.js';
import { edflibCheck } from '../support/edf-check.js';
import { mneRead } from '../support/mne-check.js';
import { FrameClient } from '../runtime/helpers.js';
import { json, type Service, startService, tempDataDir } from '../support/service.js';
import { eventually } from '../support/wait.js';

const services: Service[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.stop('SIGKILL')));
});

test('kill -9 mid-recording leaves a valid EDF+ losing at most 2 s; the restart lists it incomplete', async () => {
  const dataDir = tempDataDir();
  const first = await startService({ dataDir });
  services.push(first);
  const id = 'eeeeeeee-0000-4000-8000-000000000001';
  const created = await json(`${first.url}/stream/streams`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id,
      nodes: [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 500, amplitudes: [100], frequencies: [7], channels: 2 },
        },
        { id: 'rec', executable: 'recorder', config: { filename: 'crash.edf' } },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
      ],
      pipes: [
        { id: 'p', source: 'gen', destination: 'rec' },
        { id: 'w', source: 'gen', destination: 'ws' },
      ],
    }),
  });
  expect(created.status).toBe(200);
  await json(`${first.url}/stream/streams/${id}/signal`, {
    method: 'POST',
    body: new URLSearchParams({ signal: 'start' }),
  });
  // The generator's frames as a client receives them: how much the stream had produced by the
  // kill, in its own samples (a lower bound: a frame may still be on its way).
  const port = await eventually(
    async () => {
      const { body } = await json(`${first.url}/stream/streams/${id}/status`);
      return body.status?.nodes?.find((n: { id: string; port?: number }) => n.id === 'ws')?.port as
        | number
        | undefined;
    },
    10_000,
    'the websocket port',
  );
  const client = await FrameClient.connect(port);
  // Wait until the recorder has written for a while, measured by the file's own duration.
  await eventually(
    async () => {
      const { body } = await json(`${first.url}/system/recordings`);
      const rec = body.recordings.find((r: { name: string }) => r.name === 'crash.edf');
      return rec !== undefined && rec.durationSeconds >= 3 ? rec : undefined;
    },
    20_000,
    'three seconds recorded',
  );
  await first.stop('SIGKILL');
  client.close();
  const last = client.frames.at(-1)!.frame;
  const producedSeconds = ((last.seq + 1) * last.data.length) / 500;

  const file = path.join(dataDir, 'recordings', 'crash.edf');
  const second = await startService({ dataDir });
  services.push(second);
  const checked = edflibCheck(file, { samples: false });
  expect(checked.ok).toBe(true);
  expect(checked.signalCount).toBe(2);
  expect(checked.fileDuration).toBeGreaterThanOrEqual(Math.floor(producedSeconds - 2));

  const { body } = await json(`${second.url}/system/recordings`);
  const listed = body.recordings.find((r: { name: string }) => r.name === 'crash.edf');
  expect(listed).toMatchObject({ format: 'edf', complete: false, sampleRate: 500, channels: ['ch1', 'ch2'] });
  // The stream ran before the kill, so it runs again, into a new segment.
  await eventually(
    async () => {
      const list = await json(`${second.url}/system/recordings`);
      return list.body.recordings.some((r: { name: string }) => r.name === 'crash-2.edf') ? true : undefined;
    },
    15_000,
    'the new segment',
  );
  expect(edflibCheck(file, { samples: false }).datarecords).toBe(checked.datarecords);
}, 60_000);

interface Listed {
  name: string;
  format: string;
  complete: boolean;
}

/** Asserts that every file given opens in EDFlib and MNE (EDF/BDF) or holds data lines (CSV). */
async function expectReadable(dir: string, names: string[]): Promise<void> {
  const edf = names.filter((n) => /\.(edf|bdf)$/.test(n)).map((n) => path.join(dir, n));
  for (const file of edf) expect(edflibCheck(file, { samples: false }).ok, `EDFlib: ${file}`).toBe(true);
  for (const result of await mneRead(edf, 1))
    expect(result.ok, `MNE: ${result.path} ${result.error ?? ''}`).toBe(true);
  for (const name of names.filter((n) => n.endsWith('.csv') && !n.endsWith('.events.csv'))) {
    expect(readCsvFile(path.join(dir, name)).rows.length, name).toBeGreaterThan(0);
  }
}

/** Recorders of `name` in EDF, BDF and CSV behind an ingest node the test feeds itself. */
function ingestedRecording(id: string, name: string) {
  const formats = ['edf', 'bdf', 'csv'];
  return {
    id,
    nodes: [
      { id: 'in', executable: 'ingest', config: { sampleRate: 500, channels: ['ch1', 'ch2'] } },
      ...formats.map((format) => ({
        id: `rec-${format}`,
        executable: 'recorder',
        config: { filename: name, format },
      })),
    ],
    pipes: formats.map((format) => ({
      id: `p-${format}`,
      source: 'in',
      destination: `rec-${format}`,
      policy: 'block',
    })),
  };
}

/**
 * Sends `samples` samples at 500 Hz (frames of 50) to the stream's ingest socket, then waits until
 * every recorder has taken all of them: what they wrote by then is all they will write, so the kill
 * that follows lands at a known point of the recording, however busy the machine.
 */
async function feed(service: Service, id: string, samples: number): Promise<void> {
  const url = `${service.url.replace('http', 'ws')}/stream/${id}/ingest`;
  // The socket accepts once the stream runs, which a busy machine's start may delay.
  const socket = await eventually(
    () =>
      new Promise<WebSocket | undefined>((resolve) => {
        const ws = new WebSocket(url);
        ws.once('open', () => {
          resolve(ws);
        });
        ws.once('error', () => {
          resolve(undefined);
        });
      }),
    20_000,
    `the ingest socket of ${id}`,
  );
  const start = Date.now();
  for (let k = 0; k * 50 < samples; k++) {
    const data = Array.from({ length: Math.min(50, samples - k * 50) }, (_, i) => {
      const n = k * 50 + i;
      return [100 * Math.sin(n / 10), -n % 200];
    });
    socket.send(
      JSON.stringify({ seq: k, timestamp: start + k * 100, sampleRate: 500, channels: ['ch1', 'ch2'], data }),
    );
  }
  await eventually(
    async () => {
      const { body } = await json(`${service.url}/stream/streams/${id}/status`);
      const recorders = body.status.nodes.filter((n: { id: string }) => n.id.startsWith('rec-'));
      return recorders.every(
        (n: { metrics: { samplesProcessed: number } }) => n.metrics.samplesProcessed === samples,
      )
        ? true
        : undefined;
    },
    20_000,
    `the recorders of ${id} taking ${samples} samples`,
  );
  socket.close();
}

test('kill -9 in the first second of a recording leaves no file EDFlib or MNE refuses; the listing offers only readable files', async () => {
  const dataDir = tempDataDir();
  const dir = path.join(dataDir, 'recordings');
  const first = await startService({ dataDir });
  services.push(first);
  // `early` is killed 0.2 s into its recordings, before their first record could be on disk;
  // `second` 1.2 s into them, after their first flush (a second of records, or of CSV lines).
  const early = 'eeeeeeee-0000-4000-8000-000000000002';
  const second = 'eeeeeeee-0000-4000-8000-000000000003';
  for (const [id, name] of [
    [early, 'early'],
    [second, 'second'],
  ] as const) {
    const created = await json(`${first.url}/stream/streams`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ingestedRecording(id, name)),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await json(`${first.url}/stream/streams/${id}/signal`, {
      method: 'POST',
      body: new URLSearchParams({ signal: 'start' }),
    });
  }
  await feed(first, early, 100);
  await feed(first, second, 600);
  await first.stop('SIGKILL');

  // The recordings in their first second are hidden; those past it are visible and readable, each
  // holding its first second whole.
  const left = readdirSync(dir);
  for (const format of ['edf', 'bdf', 'csv']) {
    expect(left, format).toContain(`.early.${format}.tmp`);
    expect(left, format).not.toContain(`early.${format}`);
    expect(left, format).toContain(`second.${format}`);
  }
  const visible = left.filter((n) => !n.startsWith('.'));
  await expectReadable(dir, visible);
  for (const format of ['edf', 'bdf']) {
    const checked = edflibCheck(path.join(dir, `second.${format}`), { samples: false });
    expect(checked.fileDuration, format).toBe(10_000_000);
  }
  expect(readCsvFile(path.join(dir, 'second.csv')).rows.length).toBe(500);

  const restarted = await startService({ dataDir });
  services.push(restarted);
  // Startup repair removed the hidden files of the recordings killed in their first second.
  expect(restarted.stderr.join('\n')).toMatch(/recording early\.(edf|bdf|csv): removed/);
  const listedNow = (await json(`${restarted.url}/system/recordings`)).body.recordings as Listed[];
  expect(listedNow.map((r) => r.name).sort()).toEqual(['second.bdf', 'second.csv', 'second.edf']);
  expect(listedNow.every((r) => !r.complete)).toBe(true);
  await expectReadable(
    dir,
    listedNow.map((r) => r.name),
  );
  // The streams run again: `early` records under the same names, each listed once it holds data.
  await feed(restarted, early, 600);
  const listed = await eventually(
    async () => {
      const { body } = await json(`${restarted.url}/system/recordings`);
      const names = (body.recordings as Listed[]).map((r) => r.name).filter((n) => n.startsWith('early'));
      return names.length === 3 ? names.sort() : undefined;
    },
    20_000,
    'the three early recordings listed',
  );
  expect(listed).toEqual(['early.bdf', 'early.csv', 'early.edf']);
  await expectReadable(dir, listed);
}, 90_000);
