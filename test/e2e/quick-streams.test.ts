/**
 * Quick EEG streams on the real service (`node dist/cli.js serve`, simulated headset): a real
 * WebSocket client reads the stream, /data answers the last samples it got, /status counts at the
 * sample rate; and one service pipes its quick stream into another's ingest, whose client receives
 * the same samples. Needs `npm run build` first (npm test does it).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

interface FrameMessage {
  seq: number;
  timestamp: number;
  sampleRate: number;
  channels: string[];
  data: number[][];
}

interface Reader {
  socket: WebSocket;
  frames: FrameMessage[];
  closed: Promise<number>;
}

// Two services for the file (the pipe goes from one to the other; the first case uses the first).
// After each case their streams are deleted and their EEG configuration reset.
let services: [Service, Service];
const readers: Reader[] = [];

beforeAll(async () => {
  services = await Promise.all([startService(), startService()]);
});
afterEach(async () => {
  for (const reader of readers.splice(0)) reader.socket.terminate();
  for (const s of services) {
    const listed = (await json(`${s.url}/stream/streams`)).body.streams ?? [];
    for (const { id } of listed as { id: string }[]) {
      expect((await json(`${s.url}/stream/streams/${id}`, { method: 'DELETE' })).status).toBe(200);
    }
    expect((await json(`${s.url}/system/sensors/eeg`, { method: 'DELETE' })).status).toBe(200);
  }
});
afterAll(async () => {
  await Promise.all(services.map((s) => s.stop()));
});

async function read(url: string): Promise<Reader> {
  const socket = new WebSocket(url);
  const frames: FrameMessage[] = [];
  socket.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString('utf8')) as FrameMessage));
  const closed = new Promise<number>((resolve) => socket.on('close', resolve));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => {
      resolve();
    });
    socket.once('error', reject);
  });
  const reader = { socket, frames, closed };
  readers.push(reader);
  return reader;
}

function post(url: string, body: unknown) {
  return json(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const rows = (frames: FrameMessage[]) => frames.reduce((sum, f) => sum + f.data.length, 0);

describe('quick EEG streams on the real service', () => {
  test('WebSocket frames without gaps, /data equal to the last samples received, status counting the samples', async () => {
    const [s] = services;
    const started = await post(`${s.url}/stream/start`, {
      sampleRate: 250,
      channels: ['Cz', 'o1', 'PZ'],
      filters: { highpass: 1, lowpass: 40, notch: 50 },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({
      success: true,
      status: 'running',
      config: { channels: ['Cz', 'O1', 'Pz'] },
    });
    const id = started.body.streamId as string;
    const list = await json(`${s.url}/stream/streams`);
    expect(list.body.streams).toContainEqual({
      id,
      meta: expect.objectContaining({ tags: ['quick-stream'] }) as unknown,
      state: 'running',
    });

    const reader = await read(`ws://127.0.0.1:${s.port}/stream/${id}`);
    await eventually(async () => (reader.frames.length >= 20 ? true : undefined), 10_000, 'frames');
    const first = await json(`${s.url}/stream/${id}/status`);
    // Wait for about 2 s more of frames (events, not a sleep); the rate's accuracy against the
    // clock is the benchmarks' business, the counting is this test's.
    const seen = reader.frames.length;
    await eventually(async () => (reader.frames.length >= seen + 50 ? true : undefined), 20_000, 'frames');
    // Every row the client has was counted by the service before it was sent.
    const rowsBeforeSecond = reader.frames.reduce((n, f) => n + f.data.length, 0);
    const second = await json(`${s.url}/stream/${id}/status`);
    expect(second.body).toMatchObject({
      status: 'running',
      sampleRate: 250,
      channels: ['Cz', 'O1', 'Pz'],
      clients: 1,
    });
    expect(second.body).toMatchObject({ recording: false, recordingId: null });
    expect(second.body.samples).toBeGreaterThanOrEqual(rowsBeforeSecond);
    expect(second.body.samples).toBeGreaterThan(first.body.samples);
    expect(second.body.dataRate.samplesPerSecond).toBeGreaterThan(0);
    // Bytes follow samples × 3 channels × 4 bytes (samplesPerSecond is shown rounded to 0.1).
    expect(
      Math.abs(second.body.dataRate.bytesPerSecond - second.body.dataRate.samplesPerSecond * 3 * 4),
    ).toBeLessThanOrEqual(0.05 * 12 + 0.5);
    expect(second.body.duration).toBeGreaterThan(first.body.duration as number);

    const stopped = await post(`${s.url}/stream/${id}/stop`, {});
    expect(stopped.body).toMatchObject({ success: true, streamId: id, status: 'stopped' });
    expect(await reader.closed).toBe(1001);

    const seqs = reader.frames.map((f) => f.seq);
    expect(seqs).toEqual(seqs.map((_, i) => (seqs[0] ?? 0) + i));
    for (const frame of reader.frames) {
      expect(frame.sampleRate).toBe(250);
      expect(frame.channels).toEqual(['Cz', 'O1', 'Pz']);
      for (const row of frame.data) {
        expect(row).toHaveLength(3);
        for (const v of row) expect(Number.isFinite(v)).toBe(true);
      }
    }
    const received = rows(reader.frames);
    expect(stopped.body.samples).toBeGreaterThanOrEqual(received);

    const last = reader.frames.flatMap((f) => f.data).slice(-100);
    const data = await json(`${s.url}/stream/${id}/data?limit=100`);
    expect(data.body.channels).toEqual(['Cz', 'O1', 'Pz']);
    expect(data.body.data).toEqual(last);
    const status = await json(`${s.url}/stream/${id}/status`);
    expect(status.body).toMatchObject({ status: 'stopped', samples: stopped.body.samples, clients: 0 });
  }, 60_000);

  test('one service pipes its quick stream into the ingest of another; a client of the second gets the same samples', async () => {
    const [a, b] = services;
    const target = await post(`${b.url}/stream/start`, {
      source: 'ingest',
      sampleRate: 250,
      channels: ['Cz', 'O1'],
    });
    expect(target.status, JSON.stringify(target.body)).toBe(200);
    const targetId = target.body.streamId as string;
    const atB = await read(`ws://127.0.0.1:${b.port}/stream/${targetId}`);

    const source = await post(`${a.url}/stream/start`, { sampleRate: 250, channels: ['cz', 'o1'] });
    expect(source.status, JSON.stringify(source.body)).toBe(200);
    const sourceId = source.body.streamId as string;
    const atA = await read(`ws://127.0.0.1:${a.port}/stream/${sourceId}`);
    const piped = await post(`${a.url}/stream/${sourceId}/pipe`, {
      target: { host: '127.0.0.1', port: b.port, streamId: targetId },
      format: 'json',
      metadata: { includeChannelMetadata: true },
    });
    expect(piped.status, JSON.stringify(piped.body)).toBe(200);

    await eventually(
      async () => (atB.frames.length >= 100 ? true : undefined),
      15_000,
      'frames through the pipe',
    );
    // A frame reaches B's client through A's pipe and B's socket, and A's client through A's socket:
    // under load B's may come first. Every frame B's client got must come to A's too.
    const gotAtB = [...atB.frames];
    const sent = await eventually(
      () => {
        const byTime = new Map(atA.frames.map((f) => [f.timestamp, f]));
        return gotAtB.every((f) => byTime.has(f.timestamp)) ? byTime : undefined;
      },
      15_000,
      "every frame B's client got to come to A's client too",
    ).catch(() => new Map(atA.frames.map((f) => [f.timestamp, f])));
    for (const frame of gotAtB) {
      const original = sent.get(frame.timestamp);
      expect(original, `frame at ${frame.timestamp} came to B without leaving A's socket`).toBeDefined();
      expect(frame.data).toEqual(original?.data);
      expect(frame.channels).toEqual(['Cz', 'O1']);
      expect(frame.sampleRate).toBe(250);
    }
    const seqs = atB.frames.map((f) => f.seq);
    expect(seqs).toEqual(seqs.map((_, i) => (seqs[0] ?? 0) + i));

    const aStatus = await json(`${a.url}/stream/${sourceId}/status`);
    expect(aStatus.body.pipe).toMatchObject({
      state: 'open',
      framesDropped: 0,
      target: { port: b.port, streamId: targetId },
    });
    expect(aStatus.body.pipe.framesSent).toBeGreaterThanOrEqual(100);
    // Rows the client has now, counted before the status is read: frames keep arriving meanwhile,
    // and every one the client got was counted by the service first.
    const rowsAtB = rows(atB.frames);
    const bStatus = await json(`${b.url}/stream/${targetId}/status`);
    expect(bStatus.body.ingest.clients).toBe(1);
    expect(bStatus.body.ingest.frames).toBeGreaterThanOrEqual(100);
    expect(bStatus.body.samples).toBeGreaterThanOrEqual(rowsAtB);

    // A pipe to a host outside the allow-list is refused.
    const refused = await post(`${a.url}/stream/${sourceId}/pipe`, {
      target: { host: '192.0.2.1', port: b.port, streamId: targetId },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden_origin');
  }, 60_000);
});
