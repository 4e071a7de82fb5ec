/**
 * The parts of the quick streams on their own: the ring buffer, the ingest message checks, close
 * reasons, and the forward sender's bounded queue and reconnection against a real ws server.
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocketServer } from 'ws';
import { closeReason, mismatch, parseIngestMessage } from '../../src/streams/quick/ingest-message.js';
import { ForwardSender } from '../../src/streams/quick/forward-sender.js';
import { SampleRing } from '../../src/streams/quick/sample-ring.js';
import { testFrame } from './quick-streams-helpers.js';
import { eventually } from '../support/wait.js';

describe('SampleRing', () => {
  test('keeps the latest rows across wrap-around, with each row time', () => {
    const ring = new SampleRing(4);
    ring.push(testFrame(0, 3, ['A', 'B'], 0));
    ring.push(testFrame(1, 3, ['A', 'B'], 100));
    expect(ring.size).toBe(4);
    const latest = ring.latest(10);
    expect(latest.data).toEqual([
      [20, 21],
      [100, 101],
      [110, 111],
      [120, 121],
    ]);
    expect(latest.timestamp).toBe(1_700_000_000_000 + 2 * 4);
    expect(ring.latest(1).data).toEqual([[120, 121]]);
  });

  test('a frame larger than the ring keeps its last rows; other channels start anew', () => {
    const ring = new SampleRing(2);
    ring.push(testFrame(0, 5, ['A'], 0));
    expect(ring.latest(5).data).toEqual([[30], [40]]);
    ring.push(testFrame(1, 1, ['A', 'B'], 7));
    expect(ring.latest(5)).toMatchObject({ channels: ['A', 'B'], data: [[7, 8]] });
    ring.clear();
    expect(ring.latest(5)).toMatchObject({ timestamp: null, data: [] });
  });

  test('answers NaN and ±Infinity as their JSON strings, which JSON keeps apart', () => {
    const ring = new SampleRing(4);
    const frame = testFrame(0, 1, ['A', 'B', 'C', 'D'], 0);
    ring.push({ ...frame, data: Float32Array.from([Number.NaN, Infinity, -Infinity, 1.5]) });
    expect(JSON.parse(JSON.stringify(ring.latest(1).data))).toEqual([['NaN', 'Infinity', '-Infinity', 1.5]]);
  });
});

describe('ingest of NaN and ±Infinity', () => {
  test('the strings "NaN", "Infinity", "-Infinity" are read as those values', () => {
    const parsed = parseIngestMessage(
      JSON.stringify({
        timestamp: 1_700_000_000_000,
        sampleRate: 250,
        channels: ['A', 'B', 'C'],
        data: [['NaN', 'Infinity', '-Infinity']],
      }),
    );
    expect(parsed.ok && Array.from(parsed.frame.data)).toEqual([Number.NaN, Infinity, -Infinity]);
  });
});

describe('ingest messages', () => {
  test('a frame in the JSON text form is accepted, with metadata', () => {
    const parsed = parseIngestMessage(
      JSON.stringify({
        timestamp: 1_700_000_000_005,
        sampleRate: 250,
        channels: ['CZ'],
        data: [[1], [2]],
        discontinuity: true,
        metadata: { a: 1 },
      }),
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(Array.from(parsed.frame.data)).toEqual([1, 2]);
    expect(parsed.frame.discontinuity).toBe(true);
    expect(parsed.metadata).toEqual({ a: 1 });
  });

  test.each([
    [
      '{"timestamp":1e300,"sampleRate":250,"channels":["A"],"data":[]}',
      /timestamp 1e\+300 is outside 473385600000\.\.3629145599999/,
    ],
    [
      '{"timestamp":1700000000,"sampleRate":250,"channels":["A"],"data":[]}',
      /timestamp 1700000000 is outside/,
    ],
    ['{"timestamp":1700000000000000,"sampleRate":250,"channels":["A"],"data":[]}', /is outside/],
    ['{"timestamp":1700000000000,"sampleRate":0,"channels":["A"],"data":[]}', /sampleRate/],
    ['{"timestamp":1700000000000,"sampleRate":250,"channels":[],"data":[]}', /channels/],
    ['{"timestamp":1700000000000,"sampleRate":250,"channels":["A"],"data":{}}', /data must be an array/],
    ['{"seq":-1,"timestamp":1700000000000,"sampleRate":250,"channels":["A"],"data":[]}', /seq/],
    ['{"timestamp":1700000000000,"sampleRate":250,"channels":["A"],"data":[[null]]}', /data\[0\]\[0\]/],
    [
      '{"timestamp":1700000000000,"sampleRate":250,"channels":["A"],"data":[],"discontinuity":"yes"}',
      /discontinuity/,
    ],
    ['{"timestamp":1700000000000,"sampleRate":250,"channels":["A"],"data":[],"metadata":[1]}', /metadata/],
  ])('%s is refused', (text, reason) => {
    const parsed = parseIngestMessage(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
  });

  test('mismatch compares rate and channels (any case, in order)', () => {
    const frame = testFrame(0, 1, ['Cz', 'o1']);
    expect(mismatch(frame, { sampleRate: 250, channels: ['CZ', 'O1'] })).toBeUndefined();
    expect(mismatch(frame, {})).toBeUndefined();
    expect(mismatch(frame, { channels: ['O1', 'CZ'] })).toMatch(/channels/);
    expect(mismatch(frame, { sampleRate: 500 })).toMatch(/500 Hz/);
  });

  test('close reasons fit in 123 bytes', () => {
    expect(closeReason('short')).toBe('short');
    const long = closeReason('é'.repeat(500));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(123);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('ForwardSender', () => {
  let server: WebSocketServer | undefined;
  let sender: ForwardSender | undefined;

  afterEach(async () => {
    sender?.close();
    const open = server;
    if (open !== undefined) {
      await new Promise((resolve) => {
        open.close(resolve);
      });
    }
    server = undefined;
  });

  function listen(port = 0): Promise<{ port: number; received: unknown[]; server: WebSocketServer }> {
    const received: unknown[] = [];
    const wss = new WebSocketServer({ host: '127.0.0.1', port });
    server = wss;
    wss.on('connection', (socket) => {
      socket.on('message', (data: Buffer) => received.push(JSON.parse(data.toString('utf8'))));
    });
    return new Promise((resolve) => {
      wss.on('listening', () => {
        resolve({ port: (wss.address() as AddressInfo).port, received, server: wss });
      });
    });
  }

  test('frames sent before the connection wait in a bounded queue (oldest dropped, counted)', async () => {
    const { port, received } = await listen();
    sender = new ForwardSender({
      target: { host: '127.0.0.1', port, streamId: 'x' },
      queueLimit: 3,
      metadata: { unit: 'uV' },
    });
    for (let seq = 0; seq < 5; seq++) sender.send(JSON.stringify({ seq }));
    await eventually(() => received.length >= 3, 3000, 'queued frames');
    // The first frame of the connection carries the metadata.
    expect(received).toEqual([{ seq: 2, metadata: { unit: 'uV' } }, { seq: 3 }, { seq: 4 }]);
    expect(sender.status()).toMatchObject({ state: 'open', framesSent: 3, framesDropped: 2, queued: 0 });
  });

  test('reconnects with backoff after the target goes away and comes back', async () => {
    const first = await listen();
    sender = new ForwardSender({
      target: { host: '127.0.0.1', port: first.port, streamId: 'x' },
      initialBackoffMs: 50,
      maxBackoffMs: 200,
    });
    await eventually(() => sender?.status().state === 'open', 3000, 'open');
    for (const client of first.server.clients) client.terminate();
    await new Promise((resolve) => {
      first.server.close(resolve);
    });
    await eventually(() => sender?.status().state === 'reconnecting', 3000, 'reconnecting');
    sender.send(JSON.stringify({ seq: 1 }));
    const second = await listen(first.port);
    await eventually(() => second.received.length >= 1, 5000, 'frame after reconnection');
    expect(second.received).toEqual([{ seq: 1 }]);
    expect(sender.status()).toMatchObject({ state: 'open', reconnects: 1 });
  });
});
