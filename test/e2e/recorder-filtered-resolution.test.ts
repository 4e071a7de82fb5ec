/**
 * EDF recordings of filtered EEG lost their resolution: eeg-source → filter 1–40 Hz → EDF wrote a
 * physical range of ±590 400 µV (the ADC's full scale × the filter's ‖h‖₁), 18 µV per step, and
 * O1 held 6 distinct values. On the real service (simulated headset, seated) with MNE and EDFlib
 * reading the files back:
 * - the same filtered frames recorded as EDF (`filename: "run1"`, `format: edf` → run1.edf) and as
 *   BDF agree within one EDF step, 0.1 µV;
 * - a signal beyond the EDF's range is clipped but never silently: counted in the node's metrics,
 *   annotated in the file, announced as a `node_warning` event; EDFlib still accepts the file.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { edflibCheck } from '../support/edf-check.js';
import { mneRead } from '../support/mne-check.js';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

// One service for the file: each case has its own stream id and recording names.
let service: Service;
beforeAll(async () => {
  service = await startService({ args: ['--device', 'simulated:seated', '--seed', '7'] });
});
afterAll(async () => {
  await service.stop('SIGKILL');
});

interface NodeStatus {
  id: string;
  state: string;
  clippedSamples?: number;
  physicalMin?: number;
  physicalMax?: number;
  metrics: { samplesProcessed: number; clippedSamples?: number; lastError: string | null };
}

async function post(url: string, body: unknown): Promise<{ status: number; body: any }> {
  return json(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Creates and starts the stream, waits until every recorder wrote `samples`, stops it. */
async function record(url: string, stream: { id: string; nodes: { id: string }[] }, samples: number) {
  const created = await post(`${url}/stream/streams`, stream);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect((await post(`${url}/stream/streams/${stream.id}/signal`, { signal: 'start' })).status).toBe(200);
  const recorders = stream.nodes.filter((n) => n.id.startsWith('rec')).map((n) => n.id);
  await eventually(
    async () => {
      const status = await json(`${url}/stream/streams/${stream.id}/status`);
      const nodes = status.body.status.nodes as NodeStatus[];
      const done = recorders.every(
        (id) => (nodes.find((n) => n.id === id)?.metrics.samplesProcessed ?? 0) >= samples,
      );
      return done ? true : undefined;
    },
    20_000,
    `${samples} samples recorded`,
  );
  const status = await json(`${url}/stream/streams/${stream.id}/status`);
  expect((await post(`${url}/stream/streams/${stream.id}/signal`, { signal: 'stop' })).status).toBe(200);
  return status.body.status.nodes as NodeStatus[];
}

describe('EDF of filtered EEG', () => {
  test('EDF and BDF of eeg-source → filter 1–40 Hz agree within one EDF step (0.1 µV), read by MNE', async () => {
    const nodes = await record(
      service.url,
      {
        id: '7a1e2b3c-4d5e-4f60-8a7b-9c0d1e2f3a01',
        nodes: [
          { id: 'eeg', executable: 'eeg-source', config: { channels: ['O1', 'Cz', 'Fp1'] } },
          { id: 'bp', executable: 'filter', config: { highpass: 1, lowpass: 40 } },
          { id: 'rec-edf', executable: 'recorder', config: { filename: 'run1', format: 'edf' } },
          { id: 'rec-bdf', executable: 'recorder', config: { filename: 'run1', format: 'bdf' } },
        ],
        pipes: [
          { id: 'p1', source: 'eeg', destination: 'bp' },
          { id: 'p2', source: 'bp', destination: 'rec-edf', policy: 'block' },
          { id: 'p3', source: 'bp', destination: 'rec-bdf', policy: 'block' },
        ],
      } as never,
      1000,
    );
    const edfNode = nodes.find((n) => n.id === 'rec-edf');
    // The samples' range; the header's minimum is one step lower (its digital minimum is "no value").
    expect(edfNode).toMatchObject({ physicalMin: -3276.7, physicalMax: 3276.7, clippedSamples: 0 });
    expect(edfNode?.metrics.clippedSamples).toBe(0);
    const listing = await json(`${service.url}/system/recordings`);
    const names = (listing.body.recordings as { name: string }[])
      .map((r) => r.name)
      .filter((name) => name.startsWith('run1'));
    // A filename without an extension takes the format's.
    expect(names.sort()).toEqual(['run1.bdf', 'run1.edf']);

    const edfPath = path.join(service.dataDir, 'recordings', 'run1.edf');
    const bdfPath = path.join(service.dataDir, 'recordings', 'run1.bdf');
    const edflib = edflibCheck(edfPath, { samples: false });
    expect(edflib.ok).toBe(true);
    for (const signal of edflib.signals.slice(0, 3)) {
      expect([signal.physicalMin, signal.physicalMax]).toEqual([-3276.8, 3276.7]);
    }
    const [edf, bdf] = await mneRead([edfPath, bdfPath]);
    expect(edf?.ok, edf?.error).toBe(true);
    expect(bdf?.ok, bdf?.error).toBe(true);
    expect(edf?.chNames.slice(0, 3)).toEqual(['O1', 'Cz', 'Fp1']);
    expect(edf?.nTimes).toBe(bdf?.nTimes);
    const step = (3276.7 + 3276.8) / 65535;
    expect(step).toBeCloseTo(0.1, 12);
    for (let c = 0; c < 3; c++) {
      const a = edf?.data[c] ?? [];
      const b = bdf?.data[c] ?? [];
      expect(a.length).toBeGreaterThanOrEqual(1000);
      let worst = 0;
      for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs((a[i] ?? 0) - (b[i] ?? 0)));
      expect(worst).toBeLessThanOrEqual(step);
      // Sub-µV resolution: hundreds of distinct values, where the ±590 400 µV range gave 6.
      expect(new Set(a.slice(0, 1000)).size).toBeGreaterThan(100);
    }
  }, 60_000);

  test('a signal beyond the physical range is clipped, counted, annotated and reported; EDFlib accepts the file', async () => {
    const events: { eventType?: string; level?: string; message?: string }[] = [];
    const socket = new WebSocket(`${service.url.replace('http', 'ws')}/system/events`);
    socket.on('message', (data: Buffer) => events.push(JSON.parse(data.toString())));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    // A 10 Hz sine of 5000 µV through a 1–40 Hz band-pass: the EDF default for DC-free samples
    // (±3276.7 µV) clips its peaks, a third of every cycle; the one with physicalRange
    // 10 000 µV does not.
    const nodes = await record(
      service.url,
      {
        id: '7a1e2b3c-4d5e-4f60-8a7b-9c0d1e2f3a02',
        nodes: [
          {
            id: 'gen',
            executable: 'signal-generator',
            config: { sampleRate: 250, amplitudes: [5000], frequencies: [10], channelNames: ['O1'] },
          },
          { id: 'bp', executable: 'filter', config: { highpass: 1, lowpass: 40 } },
          { id: 'rec-clips', executable: 'recorder', config: { filename: 'loud', format: 'edf' } },
          {
            id: 'rec-wide',
            executable: 'recorder',
            config: { filename: 'loud-wide.edf', physicalRange: 10_000 },
          },
        ],
        pipes: [
          { id: 'p1', source: 'gen', destination: 'bp' },
          { id: 'p2', source: 'bp', destination: 'rec-clips', policy: 'block' },
          { id: 'p3', source: 'bp', destination: 'rec-wide', policy: 'block' },
        ],
      } as never,
      1000,
    );
    const clips = nodes.find((n) => n.id === 'rec-clips');
    const wide = nodes.find((n) => n.id === 'rec-wide');
    expect(clips?.metrics.clippedSamples).toBeGreaterThan(100);
    expect(clips?.clippedSamples).toBe(clips?.metrics.clippedSamples);
    expect(wide).toMatchObject({ physicalMin: -10_000, physicalMax: 10_000, clippedSamples: 0 });
    expect(wide?.metrics.clippedSamples).toBe(0);
    const warning = await eventually(async () =>
      events.find((e) => e.eventType === 'node_warning' && e.message?.includes('loud.edf')),
    );
    expect(warning.level).toBe('warning');
    expect(warning.message).toMatch(
      /recording "loud\.edf" clips: values outside ±3276\.7 uV \(first at \d+\.\d{3} s\).*physicalRange/,
    );
    expect(events.filter((e) => e.eventType === 'node_warning')).toHaveLength(1);
    socket.close();

    const file = path.join(service.dataDir, 'recordings', 'loud.edf');
    const check = edflibCheck(file, { samples: false });
    expect(check.ok).toBe(true);
    const marks = check.annotations.filter((a) => a.text.startsWith('Clipped: '));
    expect(marks.length).toBeGreaterThan(0);
    // Rate-limited: about one per second of recording at most.
    expect(marks.length).toBeLessThanOrEqual(Math.ceil(check.fileDuration / 1e7) + 1);
    let annotated = 0;
    for (const mark of marks) {
      const match = /^Clipped: (\d+) value\(s\) outside ±3276\.7 uV$/.exec(mark.text);
      expect(match, mark.text).not.toBeNull();
      annotated += Number(match?.[1]);
      expect(mark.duration).toBeGreaterThan(0);
    }
    // Every clipped value of the file is in an annotation (the status was read before the stop).
    expect(annotated).toBeGreaterThanOrEqual(clips?.metrics.clippedSamples ?? 0);
    const [read] = await mneRead([file], 500);
    expect(read?.ok, read?.error).toBe(true);
    expect(Math.max(...(read?.data[0] ?? []))).toBeCloseTo(3276.7, 6);
    expect(read?.annotations.some((a) => a.description.startsWith('Clipped: '))).toBe(true);
  }, 60_000);

  test('physicalRange on a CSV recording is refused at create, pointing at the field', async () => {
    const created = await post(`${service.url}/stream/streams`, {
      id: '7a1e2b3c-4d5e-4f60-8a7b-9c0d1e2f3a03',
      nodes: [{ id: 'rec', executable: 'recorder', config: { filename: 'x.csv', physicalRange: 100 } }],
    });
    expect(created.status).toBe(422);
    expect(created.body.error.details.path).toBe('/nodes/0/config/physicalRange');
    expect(created.body.error.message).toContain('physicalRange applies to EDF and BDF recordings');
  });
});
