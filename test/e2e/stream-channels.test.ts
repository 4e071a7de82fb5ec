/**
 * A stream never delivers fewer channels than it answered, and never runs healthy while its source
 * delivers nothing (docs/api.md §Channels a stream may rely on), on the real service with real
 * WebSocket clients: channels the device does not acquire are refused at start; a configuration
 * that drops a channel a running stream needs, or a forced reset of the device, makes the stream
 * degraded with a `stream_degraded` event while its frames are held back, and it recovers by itself
 * (`stream_recovered`, a frame marked `discontinuity`). Names are compared without regard to case.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { type Service, sendJson, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

interface FrameMessage {
  channels: string[];
  data: number[][];
  discontinuity?: boolean;
}

interface SystemMessage {
  type: string;
  eventType?: string;
  message?: string;
}

interface Listener<T> {
  socket: WebSocket;
  messages: T[];
  /** Resolves with the first message (from now on) that `match` accepts; rejects after 15 s without one. */
  next(match: (message: T) => boolean, what?: string): Promise<T>;
}

// One service for the file. After each case its streams are deleted and the device's EEG
// configuration reset (DELETE /system/sensors/eeg), so every case starts from the defaults.
let service: Service;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  service = await startService();
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  const listed = (await sendJson('GET', `${service.url}/stream/streams`)).body.streams ?? [];
  for (const { id } of listed as { id: string }[]) {
    expect((await sendJson('DELETE', `${service.url}/stream/streams/${id}`)).status).toBe(200);
  }
  expect((await sendJson('DELETE', `${service.url}/system/sensors/eeg`)).status).toBe(200);
});
afterAll(async () => {
  await service.stop();
});

async function listen<T>(url: string): Promise<Listener<T>> {
  const socket = new WebSocket(url);
  sockets.push(socket);
  const messages: T[] = [];
  const waiters: { match: (message: T) => boolean; resolve: (message: T) => void }[] = [];
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString('utf8')) as T;
    messages.push(message);
    for (const waiter of waiters.splice(0)) {
      if (waiter.match(message)) waiter.resolve(message);
      else waiters.push(waiter);
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => {
      resolve();
    });
    socket.once('error', reject);
  });
  return {
    socket,
    messages,
    next: (match, what = 'a message') =>
      new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`no ${what} within 15 s`));
        }, 15_000);
        waiters.push({
          match,
          resolve: (message) => {
            clearTimeout(timer);
            resolve(message);
          },
        });
      }),
  };
}

const send = sendJson;

const upper = (names: readonly string[]) => names.map((n) => n.toUpperCase());
const SEVEN = ['Pz', 'O1', 'O2', 'P3', 'P4', 'Cz', 'Fp1'];

/** A quick stream of `channels`, its frames read by a WebSocket client, and /system/events. */
async function runningQuickStream(s: Service, channels: string[]) {
  const events = await listen<SystemMessage>(`${s.url.replace('http', 'ws')}/system/events`);
  const started = await send('POST', `${s.url}/stream/start`, { channels });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const id = started.body.streamId as string;
  const frames = await listen<FrameMessage>(`${s.url.replace('http', 'ws')}/stream/${id}`);
  await frames.next(() => true);
  return { id, events, frames };
}

const aboutStream = (id: string, type: string) => (e: SystemMessage) =>
  e.type === 'system' && e.eventType === type && (e.message ?? '').includes(id);

describe('channels a stream answered are the channels it delivers', () => {
  test('a quick stream never delivers fewer channels than it answered: channels the device does not acquire are refused', async () => {
    const s = service;
    const enabled = await send('POST', `${s.url}/system/peripheral/electrodes/config`, {
      enabled: [0, 1, 2, 3],
    });
    expect(enabled.status).toBe(200);

    const refused = await send('POST', `${s.url}/stream/start`, { channels: ['Fp1', 'Cz', 'O1'] });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('channels_unavailable');
    expect(upper(refused.body.error.details.channels)).toEqual(['FP1', 'CZ']);
    expect(refused.body.error.details.path).toBe('/channels/0');
    expect(refused.body.error.message.toUpperCase()).toContain('FP1, CZ');
    expect(refused.body.error.message).toContain('PUT /system/sensors/eeg');
    // Nothing was made of the refused request.
    expect((await send('GET', `${s.url}/stream/streams`)).body.streams ?? []).toEqual([]);

    // The default (every electrode) is refused too, saying so.
    const all = await send('POST', `${s.url}/stream/start`, {});
    expect(all.status).toBe(409);
    expect(all.body.error.message).toContain('channels was not given');

    const ok = await send('POST', `${s.url}/stream/start`, { channels: ['o1', 'PZ'] });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const id = ok.body.streamId as string;
    const data = await eventually(async () => {
      const answer = await send('GET', `${s.url}/stream/${id}/data?limit=5`);
      return answer.body.data.length > 0 ? answer.body : undefined;
    });
    expect(upper(data.channels)).toEqual(['O1', 'PZ']);
    for (const row of data.data) expect(row).toHaveLength(2);
  }, 60_000);

  test('an eeg-source naming channels the device does not acquire is refused at start, pointing at the channel', async () => {
    const s = service;
    expect((await send('PUT', `${s.url}/system/sensors/eeg?channels=PZ,O1`)).status).toBe(200);
    const id = 'c0ffee00-0000-4000-8000-000000000018';
    const created = await send('POST', `${s.url}/stream/streams`, {
      id,
      nodes: [
        { id: 'eeg', executable: 'eeg-source', config: { channels: ['O1', 'Fp1'] } },
        { id: 'out', executable: 'tap', config: {} },
      ],
      pipes: [{ id: 'p', source: 'eeg', destination: 'out' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const started = await send('POST', `${s.url}/stream/streams/${id}/signal`, { signal: 'start' });
    expect(started.status).toBe(409);
    expect(started.body.error.code).toBe('channels_unavailable');
    expect(started.body.error.details.path).toBe('/nodes/0/config/channels/1');
    expect(started.body.error.message.toUpperCase()).toContain('DOES NOT ACQUIRE FP1');
  }, 60_000);

  test('a configuration that drops a channel never shrinks a running stream’s frames: degraded, held, then resumed with a discontinuity', async () => {
    const s = service;
    expect((await send('PUT', `${s.url}/system/sensors/eeg?channels=${SEVEN.join(',')}`)).status).toBe(200);
    const { id, events, frames } = await runningQuickStream(s, SEVEN);

    const degraded = events.next(aboutStream(id, 'stream_degraded'), 'stream_degraded');
    expect((await send('PUT', `${s.url}/system/sensors/eeg?channels=PZ,O1`)).status).toBe(200);
    const event = await degraded;
    expect(event.message?.toUpperCase()).toContain('O2, P3, P4, CZ, FP1');

    for (const status of [
      (await send('GET', `${s.url}/stream/${id}/status`)).body,
      (await send('GET', `${s.url}/stream/streams/${id}/status`)).body.status,
    ]) {
      expect(status).toMatchObject({ degraded: true });
      expect(status.error.toUpperCase()).toContain('NO LONGER ACQUIRES O2, P3, P4, CZ, FP1');
    }

    const recovered = events.next(aboutStream(id, 'stream_recovered'), 'stream_recovered');
    const resumed = frames.next((f) => f.discontinuity === true, 'frame with discontinuity');
    expect((await send('PUT', `${s.url}/system/sensors/eeg?channels=${SEVEN.join(',')}`)).status).toBe(200);
    await recovered;
    const first = await resumed;
    expect(upper(first.channels)).toEqual(upper(SEVEN));
    for (const frame of frames.messages) {
      expect(upper(frame.channels)).toEqual(upper(SEVEN));
      for (const row of frame.data) expect(row).toHaveLength(SEVEN.length);
    }
    const after = (await send('GET', `${s.url}/stream/${id}/status`)).body;
    expect(after).toMatchObject({ status: 'running', degraded: false, error: null });
  }, 60_000);

  test('a device reset never leaves a stream running without samples: refused while streams read, reported and recovered when forced', async () => {
    const s = service;
    const { id, events, frames } = await runningQuickStream(s, ['Cz', 'O1']);

    const refused = await send('DELETE', `${s.url}/system/sensors/eeg`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('device_busy');
    expect(refused.body.error.details.heldBy.streams).toEqual([id]);
    expect(refused.body.error.message).toContain('force=true');
    // Refused: acquisition goes on.
    const count = frames.messages.length;
    await frames.next(() => frames.messages.length > count);
    expect((await send('GET', `${s.url}/system/status`)).body.status.eeg).toMatchObject({
      streaming: true,
      owners: ['streams'],
    });

    const degraded = events.next(aboutStream(id, 'stream_degraded'), 'stream_degraded');
    const recovered = events.next(aboutStream(id, 'stream_recovered'), 'stream_recovered');
    const resumed = frames.next((f) => f.discontinuity === true, 'frame with discontinuity');
    const forced = await send('DELETE', `${s.url}/system/sensors/eeg?force=true`);
    expect(forced.status, JSON.stringify(forced.body)).toBe(200);
    expect((await degraded).message).toContain('reset');
    await recovered;
    expect(upper((await resumed).channels)).toEqual(['CZ', 'O1']);
    const more = frames.messages.length;
    await frames.next(() => frames.messages.length > more);

    expect((await send('GET', `${s.url}/stream/${id}/status`)).body).toMatchObject({
      status: 'running',
      degraded: false,
      error: null,
    });
    expect((await send('GET', `${s.url}/system/status`)).body.status.eeg).toMatchObject({
      streaming: true,
      owners: ['streams'],
    });
  }, 60_000);
});
