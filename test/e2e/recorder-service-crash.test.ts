/**
 * A researcher's worst case, on the real service: `kill -9` in the middle of a recording. The file
 * on disk must pass EDFlib's strict check holding everything up to at most 2 s before the kill; the
 * restarted service lists it as incomplete, and the stream, which was running, records on into a
 * new file without touching the old one.
 */
import { afterEach, expect, test } from 'vitest';
import path from 'node:path';
import { edflibCheck } from '../support/edf-check.js';
import { eventually, json, type Service, startService, tempDataDir } from '../support/service.js';

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
      ],
      pipes: [{ id: 'p', source: 'gen', destination: 'rec' }],
    }),
  });
  expect(created.status).toBe(200);
  await json(`${first.url}/stream/streams/${id}/signal`, {
    method: 'POST',
    body: new URLSearchParams({ signal: 'start' }),
  });
  // Wait until the recorder has written for a while, measured by the file's own duration.
  const before = await eventually(
    async () => {
      const { body } = await json(`${first.url}/system/recordings`);
      const rec = body.recordings.find((r: { name: string }) => r.name === 'crash.edf');
      return rec !== undefined && rec.durationSeconds >= 3 ? rec : undefined;
    },
    20_000,
    'three seconds recorded',
  );
  const startedAt = Date.parse(before.created);
  await first.stop('SIGKILL');
  const killedAfter = (Date.now() - startedAt) / 1000;

  const file = path.join(dataDir, 'recordings', 'crash.edf');
  const second = await startService({ dataDir });
  services.push(second);
  const checked = edflibCheck(file, { samples: false });
  expect(checked.ok).toBe(true);
  expect(checked.signalCount).toBe(2);
  expect(checked.fileDuration).toBeGreaterThanOrEqual(Math.floor(killedAfter - 2));

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
