/**
 * The streams of examples/streams/ as a user runs them: each YAML file is sent as it is to the
 * real service (simulated headset, seated; examples/nodes as an executables directory), started,
 * and its output seen: WebSocket frames, a recording listed and downloadable, the Python node's
 * frames, OSC datagrams sent (to nobody), a quick stream's buffer and WebSocket.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { parse } from 'yaml';
import { json, ROOT, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

const EXAMPLES = path.join(ROOT, 'examples', 'streams');
let service: Service;

beforeAll(async () => {
  service = await startService({
    args: ['--device', 'simulated:seated', '--executables-dir', path.join(ROOT, 'examples', 'nodes')],
  });
});

/**
 * Streams created and not yet removed. The examples run at once, each on its own stream (a user runs
 * several on one service too): a stream a test left, having failed half-way or never removing it,
 * is deleted once all have run, before the service stops.
 */
const streams = new Set<string>();
afterAll(async () => {
  for (const id of streams) await fetch(`${service.url}/stream/streams/${id}`, { method: 'DELETE' });
  streams.clear();
  await service.stop('SIGKILL');
});

interface JsonFrame {
  seq: number;
  timestamp: number;
  sampleRate: number;
  /** Per channel, when the frames' JSON form carries them. */
  units?: string[];
  /** The first frame after a gap. */
  discontinuity?: true;
  channels: string[];
  data: number[][];
}

function example(name: string): { text: string; id: string } {
  const text = readFileSync(path.join(EXAMPLES, name), 'utf8');
  return { text, id: (parse(text) as { id: string }).id };
}

/** The first `count` JSON frames a WebSocket client receives at `url`. */
async function frames(url: string, count: number): Promise<JsonFrame[]> {
  const socket = new WebSocket(url);
  const received: JsonFrame[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      socket.on('message', (data: Buffer) => {
        received.push(JSON.parse(data.toString()) as JsonFrame);
        if (received.length === count) resolve();
      });
      socket.once('error', reject);
      socket.once('close', () => {
        reject(new Error(`closed after ${received.length} frames`));
      });
    });
  } finally {
    socket.removeAllListeners('close');
    socket.close();
  }
  return received;
}

async function signal(id: string, name: string): Promise<void> {
  const answer = await json(`${service.url}/stream/streams/${id}/signal`, {
    method: 'POST',
    body: new URLSearchParams({ signal: name }),
  });
  expect(answer.body).toEqual({ id, success: true });
}

/** Creates the example from its YAML file as is, starts it and answers the WebSocket node's URL. */
async function createAndStart(name: string): Promise<{ id: string; ws: string }> {
  const { text, id } = example(name);
  const created = await json(`${service.url}/stream/streams/yaml`, {
    method: 'POST',
    headers: { 'content-type': 'text/yaml' },
    body: text,
  });
  expect(created.body).toEqual({ id, success: true });
  streams.add(id);
  await signal(id, 'start');
  const port = await eventually(async () => {
    const status = await json(`${service.url}/stream/streams/${id}/status`);
    const ws = (status.body.status.nodes as { id: string; port?: number }[]).find((n) => n.id === 'ws');
    return ws?.port;
  });
  return { id, ws: `ws://127.0.0.1:${port}` };
}

async function remove(id: string): Promise<void> {
  streams.delete(id);
  expect((await json(`${service.url}/stream/streams/${id}`, { method: 'DELETE' })).status).toBe(200);
}

test('every example stream has an id of its own: a user creates several on one service', () => {
  const byId = new Map<string, string[]>();
  for (const name of readdirSync(EXAMPLES).filter((n) => n.endsWith('.yaml') && n !== 'quick-eeg.yaml')) {
    const { id } = example(name);
    byId.set(id, [...(byId.get(id) ?? []), name]);
  }
  expect([...byId.values()].filter((names) => names.length > 1)).toEqual([]);
});

// Concurrently: most of each test is waiting on the device's time (an SSVEP window of 4 s, band
// powers every 0.5 s, a marker's epoch), which the examples can wait out together.
describe.concurrent('examples/streams', () => {
  test('eeg-filter-websocket.yaml serves filtered EEG frames', async () => {
    const { id, ws } = await createAndStart('eeg-filter-websocket.yaml');
    const received = await frames(ws, 3);
    expect(received[0]?.channels).toEqual(['Fp1', 'Fp2', 'C3', 'C4', 'Cz', 'O1', 'O2']);
    expect(received[0]?.sampleRate).toBe(250);
    // Seated electrodes, 1-40 Hz: EEG in the tens of µV, not a floating input's millivolts.
    for (const row of received.flatMap((f) => f.data)) {
      for (const value of row) expect(Math.abs(value)).toBeLessThan(1000);
    }
    await remove(id);
  });

  test('eeg-ssvep-websocket.yaml serves one row of SSVEP scores per window', async () => {
    const { id, ws } = await createAndStart('eeg-ssvep-websocket.yaml');
    // The first window ends 4 s after the start; then one every 0.5 s.
    const received = await frames(ws, 2);
    expect(received[0]?.channels).toEqual([
      'score.6.66Hz',
      'score.7.5Hz',
      'score.8.57Hz',
      'score.12Hz',
      'score.15Hz',
      'frequency.top',
      'frequency.detected',
    ]);
    expect(received[0]?.sampleRate).toBe(2);
    for (const frame of received) {
      expect(frame.data).toHaveLength(1);
      for (const score of (frame.data[0] ?? []).slice(0, 5)) {
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
      }
    }
    await remove(id);
  });

  test('eeg-filter-websocket-recorder.yaml serves frames and leaves a BDF+ file', async () => {
    const { id, ws } = await createAndStart('eeg-filter-websocket-recorder.yaml');
    expect((await frames(ws, 2))[0]?.channels).toHaveLength(7);
    // The first data record (1 s) reaches the disk before the file is published.
    await eventually(async () => {
      const status = await json(`${service.url}/stream/streams/${id}/status`);
      const rec = (status.body.status.nodes as { id: string; metrics: { samplesProcessed: number } }[]).find(
        (n) => n.id === 'rec',
      );
      return (rec?.metrics.samplesProcessed ?? 0) >= 300 ? true : undefined;
    });
    await signal(id, 'stop');
    const listing = await json(`${service.url}/system/recordings`);
    const file = (listing.body.recordings as { name: string; complete: boolean; channels: string[] }[]).find(
      (r) => r.name === 'example-session.bdf',
    );
    expect(file).toMatchObject({ complete: true, channels: ['Fp1', 'Fp2', 'C3', 'C4', 'Cz', 'O1', 'O2'] });
    const download = await fetch(`${service.url}/system/recordings/example-session.bdf`);
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes[0]).toBe(0xff);
    expect(bytes.subarray(1, 8).toString('latin1')).toBe('BIOSEMI');
    await remove(id);
  });

  test('eeg-python-band-power.yaml runs the Python node and serves its alpha power', async () => {
    const { id, ws } = await createAndStart('eeg-python-band-power.yaml');
    const received = await frames(ws, 2);
    expect(received[0]?.channels).toEqual(['O1', 'O2', 'Pz']);
    // One row per input frame, a power: positive, in µV².
    for (const row of received.flatMap((f) => f.data)) {
      for (const value of row) expect(value).toBeGreaterThan(0);
    }
    await remove(id);
  });

  test("maker-alpha-websocket.yaml runs the maker's eeg_source and bandpass_filter: the alpha band of O1, O2, Pz", async () => {
    const { id, ws } = await createAndStart('maker-alpha-websocket.yaml');
    const received = await frames(ws, 3);
    expect(received[0]?.channels).toEqual(['O1', 'O2', 'Pz']);
    expect(received[0]?.sampleRate).toBe(250);
    // Seated electrodes, 8-12 Hz: a few µV to tens of µV, DC removed.
    for (const row of received.flatMap((f) => f.data)) {
      for (const value of row) expect(Math.abs(value)).toBeLessThan(1000);
    }
    await remove(id);
  });

  test('eeg-band-power-websocket.yaml serves band powers every 0.5 s, channels <channel>.<band>', async () => {
    const { id, ws } = await createAndStart('eeg-band-power-websocket.yaml');
    // Beside a CPU hog the node may fall behind the EEG long enough that its input pipe (drop-oldest,
    // 64 frames) discards frames: the value after such a gap says `discontinuity` and comes a whole
    // window later. Frames are read until two consecutive values follow one another without one.
    let received = await frames(ws, 3);
    const consecutive = (list: JsonFrame[]): boolean =>
      list.some((frame, k) => k > 0 && frame.discontinuity !== true);
    for (let more = 6; !consecutive(received) && more <= 24; more += 6) received = await frames(ws, more);
    expect(consecutive(received), JSON.stringify(received.map((f) => [f.timestamp, f.discontinuity]))).toBe(
      true,
    );
    const bands = ['delta', 'theta', 'alpha', 'beta', 'gamma'];
    const channels = ['O1', 'O2', 'Pz'].flatMap((ch) => bands.map((b) => `${ch}.${b}`));
    for (const frame of received) {
      expect(frame.channels).toEqual(channels);
      expect(frame.sampleRate).toBe(2);
      // One row per step: a window's powers, positive, in µV² (seated EEG: well under 10⁶ µV²).
      expect(frame.data).toHaveLength(1);
      for (const value of frame.data[0]!) {
        expect(value).toBeGreaterThan(0);
        expect(value).toBeLessThan(1e6);
      }
      // The frame's units, where its JSON form carries them.
      if (frame.units !== undefined) expect(frame.units).toEqual(channels.map(() => 'µV²'));
    }
    // Consecutive windows end one step (125 samples at 250 Hz) apart; after a gap the window starts
    // afresh, so its first value ends a whole window (500 samples) or more after the last.
    for (let k = 1; k < received.length; k++) {
      const step = received[k]!.timestamp - received[k - 1]!.timestamp;
      if (received[k]!.discontinuity === true) expect(step).toBeGreaterThanOrEqual(2000);
      else expect(step).toBeCloseTo(500, 0);
    }
    await remove(id);
  });

  test('eeg-resample-websocket.yaml serves the EEG at 100 Hz', async () => {
    const { id, ws } = await createAndStart('eeg-resample-websocket.yaml');
    const received = await frames(ws, 10);
    const rows = received.flatMap((f) => f.data);
    expect(received[0]?.channels).toEqual(['Fp1', 'Fp2', 'Cz', 'O1', 'O2']);
    for (const frame of received) expect(frame.sampleRate).toBe(100);
    for (const row of rows) for (const value of row) expect(Math.abs(value)).toBeLessThan(1e5);
    // Stamps follow the sample count at 100 Hz: frame k+1 starts where frame k ends, unless frames
    // were lost between them (a CPU hog: the pipe's drops), which its `discontinuity` says.
    let joined = 0;
    for (let k = 1; k < received.length; k++) {
      const previous = received[k - 1]!;
      const step = received[k]!.timestamp - previous.timestamp;
      if (received[k]!.discontinuity === true) expect(step).toBeGreaterThan(previous.data.length * 10);
      else {
        expect(step).toBeCloseTo(previous.data.length * 10, 0);
        joined++;
      }
    }
    expect(joined).toBeGreaterThan(0);
    await remove(id);
  });

  test('eeg-reference-websocket.yaml serves the average-referenced channels it picks', async () => {
    const { id, ws } = await createAndStart('eeg-reference-websocket.yaml');
    const received = await frames(ws, 2);
    expect(received[0]?.channels).toEqual(['Fz', 'Cz', 'Pz', 'O1', 'O2']);
    expect(received[0]?.sampleRate).toBe(250);
    await remove(id);
  });

  test('eeg-epochs-websocket.yaml serves one frame per marker: 1 s from 0.2 s before it', async () => {
    const { id, ws } = await createAndStart('eeg-epochs-websocket.yaml');
    const socket = new WebSocket(ws);
    const epoch = new Promise<
      JsonFrame & { marker?: { text: string; timestamp: number }; timestamp: number }
    >((resolve, reject) => {
      socket.once('message', (data: Buffer) => {
        resolve(JSON.parse(data.toString()));
      });
      socket.once('error', reject);
    });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    // A marker needs the 0.2 s before it: the node refuses one whose window starts before its first sample.
    await eventually(async () => {
      const status = await json(`${service.url}/stream/streams/${id}/status`);
      const node = (status.body.status.nodes as { id: string; metrics: { samplesProcessed: number } }[]).find(
        (n) => n.id === 'epochs',
      );
      return (node?.metrics.samplesProcessed ?? 0) >= 100 ? true : undefined;
    });
    const marked = await json(`${service.url}/stream/streams/${id}/nodes/epochs/signal`, {
      method: 'POST',
      body: new URLSearchParams({ signal: 'marker', text: 'target' }),
    });
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);
    const frame = await epoch;
    socket.close();
    expect(frame.marker?.text).toBe('target');
    expect(frame.channels).toEqual(['Fz', 'Cz', 'Pz', 'O1', 'O2']);
    // round(-0.2 × 250) = -50 to round(0.8 × 250) = 200: 251 samples, the first 0.2 s before the marker.
    expect(frame.data).toHaveLength(251);
    expect((frame.marker?.timestamp ?? 0) - frame.timestamp).toBeCloseTo(200, 6);
    await remove(id);
  });

  test('eeg-osc.yaml runs and sends its datagrams with no receiver listening', async () => {
    const { text, id } = example('eeg-osc.yaml');
    const created = await json(`${service.url}/stream/streams/yaml`, {
      method: 'POST',
      headers: { 'content-type': 'text/yaml' },
      body: text,
    });
    expect(created.body).toEqual({ id, success: true });
    streams.add(id);
    await signal(id, 'start');
    const osc = await eventually(async () => {
      const status = await json(`${service.url}/stream/streams/${id}/status`);
      const node = (
        status.body.status.nodes as { id: string; state: string; metrics: Record<string, number> }[]
      ).find((n) => n.id === 'osc');
      return (node?.metrics.datagramsSent ?? 0) >= 10 ? node : undefined;
    });
    expect(osc.state).toBe('running');
    expect(osc.metrics.sendErrors ?? 0).toBe(0);
    await remove(id);
  });

  test('quick-eeg.yaml is the body of POST /stream/start: buffer and WebSocket fill', async () => {
    const started = await json(`${service.url}/stream/start`, {
      method: 'POST',
      headers: { 'content-type': 'text/yaml' },
      body: readFileSync(path.join(EXAMPLES, 'quick-eeg.yaml'), 'utf8'),
    });
    expect(started.body).toMatchObject({ success: true, status: 'running' });
    const streamId = started.body.streamId as string;
    const received = await frames(`${service.url.replace('http', 'ws')}/stream/${streamId}`, 2);
    expect(received[0]?.channels).toEqual(['Fp1', 'Fp2', 'Cz', 'O1', 'O2']);
    const data = await eventually(async () => {
      const answer = await json(`${service.url}/stream/${streamId}/data?limit=10`);
      return (answer.body.data as number[][]).length === 10 ? answer.body : undefined;
    });
    expect(data.channels).toEqual(['Fp1', 'Fp2', 'Cz', 'O1', 'O2']);
    expect((await json(`${service.url}/stream/${streamId}/stop`, { method: 'POST' })).status).toBe(200);
  });
});
