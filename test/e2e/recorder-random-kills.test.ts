/**
 * kill -9 of the real service at seeded random moments, again and again on one data dir, with two
 * streams running and four recorders writing (EDF+, BDF+, CSV): several kills fall within the first
 * second after the service started, while it restores its streams and its recorders open their
 * files. After every restart each recording the API lists is a file EDFlib opens (CSV: whole data
 * lines), MNE opens them all, and the streams, restored as documented, run and record again.
 * Set HEADSETD_FAULT_SEED to replay another sequence of moments.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { readCsvFile } from '../../src/formats/csv-reader.js';
import { edflibCheck } from '../support/edf-check.js';
import { mneRead } from '../support/mne-check.js';
import { json, type Service, startService, tempDataDir } from '../support/service.js';
import { prng } from '../support/prng.js';
import { eventually } from '../support/wait.js';

const SEED = Number(process.env.HEADSETD_FAULT_SEED ?? 20261126);
/** Kill moments after the service listened, ms: the first ones within its first second. */
const WINDOWS = [1000, 1000, 300, 1500];

const services: Service[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.stop('SIGKILL')));
});

const STREAMS = [
  {
    id: 'abababab-0000-4000-8000-000000000001',
    nodes: [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 500, amplitudes: [100], frequencies: [7], channels: 4 },
      },
      { id: 'edf', executable: 'recorder', config: { filename: 'alpha', format: 'edf' } },
      { id: 'bdf', executable: 'recorder', config: { filename: 'alpha', format: 'bdf' } },
    ],
    pipes: [
      { id: 'p1', source: 'gen', destination: 'edf', policy: 'block' },
      { id: 'p2', source: 'gen', destination: 'bdf', policy: 'block' },
    ],
  },
  {
    id: 'abababab-0000-4000-8000-000000000002',
    nodes: [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 250, amplitudes: [50], frequencies: [3], channels: 2 },
      },
      { id: 'csv', executable: 'recorder', config: { filename: 'beta', format: 'csv' } },
      { id: 'edf', executable: 'recorder', config: { filename: 'beta', format: 'edf' } },
    ],
    pipes: [
      { id: 'p1', source: 'gen', destination: 'csv', policy: 'block' },
      { id: 'p2', source: 'gen', destination: 'edf', policy: 'block' },
    ],
  },
];

interface Listed {
  name: string;
  format: string;
  complete: boolean;
}

const listed = async (service: Service): Promise<Listed[]> => {
  const answer = await json(`${service.url}/system/recordings`);
  expect(answer.status).toBe(200);
  return answer.body.recordings as Listed[];
};

/** Asserts that EDFlib opens the file (EDF, BDF) or that it holds whole data lines (CSV). */
function expectValid(dir: string, name: string, when: string): void {
  const file = path.join(dir, name);
  if (name.endsWith('.csv')) {
    expect(readCsvFile(file).rows.length, `${name} ${when}`).toBeGreaterThan(0);
    return;
  }
  const lib = edflibCheck(file, { samples: false });
  expect(lib.ok, `EDFlib: ${name} ${when} (${JSON.stringify(lib.error)})`).toBe(true);
}

test('kill -9 at seeded random moments, early ones included: every recording listed after each restart opens in EDFlib and MNE; the streams run again', async () => {
  const next = prng(SEED);
  const dataDir = tempDataDir();
  const dir = path.join(dataDir, 'recordings');
  const first = await startService({ dataDir });
  services.push(first);
  for (const stream of STREAMS) {
    const created = await json(`${first.url}/stream/streams`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(stream),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const started = await json(`${first.url}/stream/streams/${stream.id}/signal`, {
      method: 'POST',
      body: new URLSearchParams({ signal: 'start' }),
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
  }
  let service = first;
  const checked = new Set<string>();
  for (const [cycle, window] of WINDOWS.entries()) {
    // A random moment: this is the fault injected, not a wait for something to happen.
    const delay = Math.floor(next() * window);
    await new Promise((resolve) => setTimeout(resolve, delay));
    await service.stop('SIGKILL');
    // What the kill left no longer changes until the next start repairs it.
    const onDisk = new Set(readdirSync(dir).filter((n) => !n.startsWith('.')));
    const when = `after kill ${cycle + 1} (seed ${SEED}, ${delay} ms after start)`;
    service = await startService({ dataDir });
    services.push(service);
    // Files from before this start (repaired already) are checked now; those the restored
    // streams are writing, after the next kill.
    for (const recording of await listed(service)) {
      if (!onDisk.has(recording.name)) continue;
      expectValid(dir, recording.name, when);
      checked.add(recording.name);
    }
  }

  // The last start runs on: both streams run again and record into new files.
  for (const stream of STREAMS) {
    await eventually(
      async () => {
        const { body } = await json(`${service.url}/stream/streams/${stream.id}/status`);
        const recorders = body.status.nodes.filter((n: { id: string }) => n.id !== 'gen');
        return body.status.state === 'running' &&
          recorders.every(
            (n: { state: string; metrics: { samplesProcessed: number } }) =>
              n.state === 'running' && n.metrics.samplesProcessed > 0,
          )
          ? true
          : undefined;
      },
      20_000,
      `stream ${stream.id} running and recording`,
    );
  }
  expect(await service.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  const onDisk = new Set(readdirSync(dir).filter((n) => !n.startsWith('.')));
  const last = await startService({ dataDir });
  services.push(last);
  // The restored streams record on in new files; those from before are the ones to check.
  const all = (await listed(last)).filter((r) => onDisk.has(r.name));
  for (const recording of all) expectValid(dir, recording.name, 'at the end');
  // Every stem recorded, and nothing listed that MNE refuses.
  expect(new Set(all.map((r) => `${r.name.split(/[-.]/)[0]}.${r.format}`))).toEqual(
    new Set(['alpha.edf', 'alpha.bdf', 'beta.csv', 'beta.edf']),
  );
  const edf = all.filter((r) => r.format !== 'csv').map((r) => path.join(dir, r.name));
  for (const result of await mneRead(edf, 1))
    expect(result.ok, `MNE: ${result.path} ${result.error ?? ''}`).toBe(true);
  // Each file listed after a kill was checked when listed, and is still listed.
  for (const name of checked) expect(onDisk.has(name), name).toBe(true);
}, 120_000);
