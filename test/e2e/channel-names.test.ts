/**
 * One spelling of the channel names in every output that carries EEG data. Frames (eeg-source's,
 * quick streams', the live socket under /system) named channels `FP1`, `CZ` while the files and the
 * recordings list named them `Fp1`, `Cz`: a script that matched a recording's channels against the
 * frames it had seen, or an MNE montage against frames, found nothing. Now every EEG output uses
 * the standard 10-20 form (`Fp1`, `Cz`, `T3`), on the real service; names given in any case are
 * accepted, and the maps and settings under /system keep the upper-case names of the reference.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { readEdf } from '../recordings/support.js';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

const STREAM = '5b7c0e2a-6d1f-4a3b-9c8d-2e4f6a8b0c1d';
const ASKED = ['fp1', 'CZ', 'o1', 'T3'];
const NAMES = ['Fp1', 'Cz', 'O1', 'T3'];

let service: Service;
beforeAll(async () => {
  service = await startService({ args: ['--device', 'simulated:seated'] });
});
afterAll(async () => {
  await service.stop();
});

/** The channels of the first frame a WebSocket sends. */
function firstFrameChannels(url: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('message', (data: Buffer) => {
      resolve((JSON.parse(data.toString('utf8')) as { channels: string[] }).channels);
      socket.terminate();
    });
    socket.once('error', reject);
  });
}

function post(url: string, body: unknown) {
  return json(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

test('frames, quick streams, files and the recordings list name channels alike: Fp1, Cz (frames said FP1, CZ)', async () => {
  const created = await post(`${service.url}/stream/streams`, {
    id: STREAM,
    meta: { name: 'names' },
    nodes: [
      { id: 'eeg', type: 'EXECUTABLE_PRODUCER', executable: 'eeg-source', config: { channels: ASKED } },
      { id: 'ws', type: 'EXECUTABLE_CONSUMER', executable: 'websocket', config: { port: 0 } },
      { id: 'edf', type: 'EXECUTABLE_CONSUMER', executable: 'recorder', config: { filename: 'names.edf' } },
      { id: 'csv', type: 'EXECUTABLE_CONSUMER', executable: 'recorder', config: { filename: 'names.csv' } },
    ],
    pipes: [
      { id: 'p1', source: 'eeg', destination: 'ws' },
      { id: 'p2', source: 'eeg', destination: 'edf' },
      { id: 'p3', source: 'eeg', destination: 'csv' },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  await post(`${service.url}/stream/streams/${STREAM}/signal`, { signal: 'start' });
  const port = await eventually(async () => {
    const status = await json(`${service.url}/stream/streams/${STREAM}/status`);
    return (status.body.status.nodes as { id: string; port?: number }[]).find((n) => n.id === 'ws')?.port;
  });
  expect(await firstFrameChannels(`ws://127.0.0.1:${port}`)).toEqual(NAMES);
  // The live socket under /system carries the same frames.
  const live = await firstFrameChannels(`${service.url.replace('http', 'ws')}/system/sensors/eeg/stream`);
  expect(live).toEqual(expect.arrayContaining(NAMES));
  expect(live).not.toContain('FP1');

  // A quick stream: its answer, its frames, its status and its data.
  const quick = await post(`${service.url}/stream/start`, { channels: ASKED.join(',') });
  expect(quick.body.config.channels).toEqual(NAMES);
  const quickId = quick.body.streamId as string;
  expect(await firstFrameChannels(`${service.url.replace('http', 'ws')}/stream/${quickId}`)).toEqual(NAMES);
  expect((await json(`${service.url}/stream/${quickId}/status`)).body.channels).toEqual(NAMES);
  const data = await eventually(async () => {
    const answer = await json(`${service.url}/stream/${quickId}/data?limit=5`);
    return (answer.body.data as unknown[]).length === 5 ? answer.body : undefined;
  });
  expect(data.channels).toEqual(NAMES);
  await post(`${service.url}/stream/${quickId}/stop`, {});

  // The files, once a data record is on disk, and the recordings list.
  await eventually(async () => {
    const status = await json(`${service.url}/stream/streams/${STREAM}/status`);
    const edf = (status.body.status.nodes as { id: string; metrics: { samplesProcessed: number } }[]).find(
      (n) => n.id === 'edf',
    );
    return (edf?.metrics.samplesProcessed ?? 0) >= 300 ? true : undefined;
  });
  await post(`${service.url}/stream/streams/${STREAM}/signal`, { signal: 'stop' });
  const dir = path.join(service.dataDir, 'recordings');
  expect(readEdf(path.join(dir, 'names.edf')).labels.slice(0, NAMES.length)).toEqual(NAMES);
  expect(
    readFileSync(path.join(dir, 'names.csv'), 'utf8').split('\n')[0]?.split(',').slice(-NAMES.length),
  ).toEqual(NAMES);
  const listing = (await json(`${service.url}/system/recordings`)).body.recordings as {
    name: string;
    channels: string[];
  }[];
  expect(listing.find((r) => r.name === 'names.edf')?.channels).toEqual(NAMES);
  expect(listing.find((r) => r.name === 'names.csv')?.channels).toEqual(NAMES);

  // Under /system the maps keep the reference's upper-case names.
  const positions = await json(`${service.url}/system/motors/position?electrode=fp1,cz`);
  expect(Object.keys(positions.body)).toEqual(['FP1', 'CZ']);
});
