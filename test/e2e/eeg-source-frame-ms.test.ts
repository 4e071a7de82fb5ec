/**
 * eeg-source `frameMs` on the real service: the headset's frames (3 rows at 250 Hz) joined into
 * frames of 40 ms (10 rows), each timed by its first row, contiguous, and carrying exactly the
 * samples the same device's frames carry unjoined (a second eeg-source of the same stream, read
 * by its own WebSocket client). A config outside 1–1000 ms is refused with a pointer to it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { type Service, sendJson, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

interface FrameMessage {
  timestamp: number;
  sampleRate: number;
  channels: string[];
  data: number[][];
}

// One service for the file: each case creates its own stream (a random id).
let service: Service;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  service = await startService();
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.terminate();
});
afterAll(async () => {
  await service.stop();
});

function collect(port: number): FrameMessage[] {
  const frames: FrameMessage[] = [];
  const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
  sockets.push(socket);
  socket.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString('utf8')) as FrameMessage));
  return frames;
}

/** Every row of `frames`, keyed by its time (µs, rounded) at `rate`. */
function rowsByTime(frames: FrameMessage[]): Map<number, number[]> {
  const rows = new Map<number, number[]>();
  for (const frame of frames)
    frame.data.forEach((row, r) => {
      rows.set(Math.round((frame.timestamp + (r * 1000) / frame.sampleRate) * 1000), row);
    });
  return rows;
}

describe('eeg-source frameMs', () => {
  test('joins the device frames into 40 ms frames with the same samples, exactly timed', async () => {
    const s = service;
    const id = randomUUID();
    const created = await sendJson('POST', `${s.url}/stream/streams`, {
      id,
      nodes: [
        { id: 'joined', executable: 'eeg-source', config: { channels: ['O1', 'Cz', 'Fp2'], frameMs: 40 } },
        { id: 'plain', executable: 'eeg-source', config: { channels: ['O1', 'Cz', 'Fp2'] } },
        { id: 'ws-joined', executable: 'websocket', config: { port: 0 } },
        { id: 'ws-plain', executable: 'websocket', config: { port: 0 } },
      ],
      pipes: [
        { id: 'p1', source: 'joined', destination: 'ws-joined' },
        { id: 'p2', source: 'plain', destination: 'ws-plain' },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect((await sendJson('POST', `${s.url}/stream/streams/${id}/signal`, { signal: 'start' })).status).toBe(
      200,
    );
    // The start answer may come before the websocket nodes listen (a busy machine): their ports say when.
    const status = await eventually(
      async () => {
        const read = await sendJson('GET', `${s.url}/stream/streams/${id}/status`);
        const nodes = read.body.status.nodes as { id: string; port?: number }[];
        return nodes.filter((n) => (n.port ?? 0) > 0).length === 2 ? read : undefined;
      },
      30_000,
      'both websocket nodes listening',
    );
    const port = (node: string) =>
      (status.body.status.nodes as { id: string; port?: number }[]).find((n) => n.id === node)
        ?.port as number;
    const joined = collect(port('ws-joined'));
    const plain = collect(port('ws-plain'));
    await eventually(() => joined.length >= 15 && plain.length >= 40, 20_000, '15 joined frames');

    expect(joined[0]?.sampleRate).toBe(250);
    // 10 rows each, one every 40 ms (3-row device frames split where a block ends).
    for (const frame of joined) expect(frame.data).toHaveLength(10);
    expect(plain.every((f) => f.data.length === 3)).toBe(true);
    for (let k = 1; k < joined.length; k++)
      expect((joined[k]?.timestamp ?? 0) - (joined[k - 1]?.timestamp ?? 0)).toBeCloseTo(40, 6);

    // The same samples, row for row, wherever both clients saw a row.
    const a = rowsByTime(joined);
    const b = rowsByTime(plain);
    let compared = 0;
    for (const [time, row] of a) {
      const other = b.get(time);
      if (other === undefined) continue;
      expect(row).toEqual(other);
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
  }, 60_000);

  test('a frameMs outside 1–1000 ms is refused, pointing at it', async () => {
    const answer = await sendJson('POST', `${service.url}/stream/streams`, {
      id: randomUUID(),
      nodes: [{ id: 'eeg', executable: 'eeg-source', config: { frameMs: 0 } }],
      pipes: [],
    });
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.body.error)).toContain('/nodes/0/config/frameMs');
  }, 60_000);
});
