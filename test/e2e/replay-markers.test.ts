/**
 * The replay device's markers on the real service (`--device replay:FILE`): the annotations of an
 * EDF+ file the project's writer made are announced on WebSocket /system/events as `marker`
 * events, and a recorder of the replayed EEG writes them into its own file at the same samples
 * (the replay dropped them, and played the last record's padding).
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { EdfWriter } from '../../src/formats/edf-writer.js';
import { readEdf } from '../recordings/support.js';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

const RATE = 250;
const STREAM = '7d2e4f6a-8b0c-4d1e-9f3a-5b7c9d1e3f5a';
const dir = scratchDir('headsetd-replay-markers');
const file = path.join(dir, 'marked.edf');

let service: Service;
beforeAll(async () => {
  // 3.3 s of a 7-Hz sine on O1 and Cz, two annotations, the last record padded.
  const writer = EdfWriter.open(file, {
    format: 'edf',
    sampleRate: RATE,
    channels: ['O1', 'Cz'].map((label) => ({ label, physicalMin: -500, physicalMax: 500 })),
    startTime: new Date('2026-11-21T09:30:15.000Z'),
  });
  const samples = 3.3 * RATE;
  const data = new Float32Array(samples * 2);
  for (let k = 0; k < samples; k++) data.fill(50 * Math.sin((2 * Math.PI * 7 * k) / RATE), 2 * k, 2 * k + 2);
  writer.write(data, samples);
  writer.annotate(0.5, 'eyes closed');
  writer.annotate(1.25, 'stimulus A', 0.5);
  writer.close();
  service = await startService({ args: ['--device', `replay:${file}`] });
});
afterAll(async () => {
  await service.stop();
});

test("a replayed file's annotations reach /system/events and the recorders of its EEG", async () => {
  const events = new WebSocket(`${service.url.replace('http', 'ws')}/system/events`);
  const markers: { timestamp: number; data: { text: string; onset: number } }[] = [];
  events.on('message', (raw: Buffer) => {
    const event = JSON.parse(raw.toString('utf8'));
    if (event.type === 'marker') markers.push(event);
  });
  await new Promise((resolve, reject) => {
    events.once('open', resolve);
    events.once('error', reject);
  });
  const created = await json(`${service.url}/stream/streams`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: STREAM,
      meta: { name: 'replayed' },
      nodes: [
        { id: 'eeg', type: 'EXECUTABLE_PRODUCER', executable: 'eeg-source' },
        { id: 'rec', type: 'EXECUTABLE_CONSUMER', executable: 'recorder', config: { filename: 'again.edf' } },
      ],
      pipes: [{ id: 'p', source: 'eeg', destination: 'rec' }],
    }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const signal = (name: string) =>
    json(`${service.url}/stream/streams/${STREAM}/signal`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signal: name }),
    });
  await signal('start');
  await eventually(async () => (markers.length >= 2 ? true : undefined), 10_000, 'two markers');
  expect(markers.map((m) => m.data)).toEqual([
    { text: 'eyes closed', onset: 0.5, file: 'marked.edf' },
    { text: 'stimulus A', onset: 1.25, duration: 0.5, file: 'marked.edf' },
  ]);
  // The recorder has frames past the second marker (the file's record of 1 s holds 1.25 s + 0.75).
  await eventually(
    async () => {
      const status = await json(`${service.url}/stream/streams/${STREAM}/status`);
      const rec = (status.body.status.nodes as { id: string; metrics: { samplesProcessed: number } }[]).find(
        (n) => n.id === 'rec',
      );
      return (rec?.metrics.samplesProcessed ?? 0) >= 2.2 * RATE ? true : undefined;
    },
    10_000,
    'the recorder past 2.2 s',
  );
  await signal('stop');
  events.terminate();
  const again = readEdf(path.join(service.dataDir, 'recordings', 'again.edf'));
  const notes = again.annotations.filter((a) => a.text === 'eyes closed' || a.text === 'stimulus A');
  expect(notes.map((a) => a.text)).toEqual(['eyes closed', 'stimulus A']);
  // At their samples: the recording starts at the replay's first sample, 0.5 s and 1.25 s in.
  expect(Math.abs((notes[0]?.onset ?? NaN) - 0.5)).toBeLessThanOrEqual(1 / RATE);
  expect(Math.abs((notes[1]?.onset ?? NaN) - 1.25)).toBeLessThanOrEqual(1 / RATE);
  expect(notes[1]?.duration).toBe(0.5);
});
