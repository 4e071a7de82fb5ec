/**
 * One JSON text per frame on every socket that sends frames as text (docs/api.md §Frames): a
 * stream's `websocket` node, a quick stream's socket `/stream/{streamId}` and the device's live
 * socket `GET /system/sensors/eeg/stream` document the same shape, so a client reading any of them
 * receives the same bytes for the same frame. Each path is driven with its own code (the node, the
 * quick stream's session, the live socket the service composes) and read by a real `ws` client.
 * The reference is the documentation: its example texts, and for a frame with every optional field
 * the object of the fields in the order of the §Frames table, written out by `JSON.stringify`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { type Frame, frameFromJson, type FrameJson } from '../../src/core/frame.js';
import type { NodeContext, NodeInstance } from '../../src/core/node.js';
import { liveFrameSockets, type LiveSockets } from '../../src/events/live-sockets.js';
import { createWebSocketOutput } from '../../src/streams/executables/websocket.js';
import { QuickSession } from '../../src/streams/quick/session.js';
import { parseQuickStart } from '../../src/streams/quick-stream.js';
import { eventually } from '../support/wait.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The example texts of docs/api.md §Frames (`{"seq":0,…}` in backquotes). */
function documentedExamples(): string[] {
  const api = readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');
  const section = api.slice(api.indexOf('### Frames'), api.indexOf('\n### ', api.indexOf('### Frames') + 1));
  return [...section.matchAll(/`(\{"seq":[^`]*\})`/g)].map((m) => m[1] as string);
}

/** A reader of one socket: the text messages it received, in order. */
interface Reader {
  client: WebSocket;
  texts: string[];
}

function read(url: string): Promise<Reader> {
  const client = new WebSocket(url);
  const texts: string[] = [];
  client.on('message', (data: Buffer, isBinary: boolean) => {
    texts.push(isBinary ? `binary ${data.length} bytes` : data.toString('utf8'));
  });
  return new Promise((resolve, reject) => {
    client.once('open', () => {
      resolve({ client, texts });
    });
    client.once('error', reject);
  });
}

/** Paths under test: each sends one frame to its readers. */
interface Path {
  name: string;
  reader: Reader;
  send(frame: Frame): void;
}

const paths: Path[] = [];
const closers: (() => Promise<void> | void)[] = [];

/** A plain ws server whose accepted sockets go to `onSocket` (the API's server in the service). */
async function serverFor(onSocket: (socket: WebSocket) => void): Promise<number> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  server.on('connection', onSocket);
  await new Promise((resolve) => server.once('listening', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => {
          resolve();
        });
      }),
  );
  return (server.address() as AddressInfo).port;
}

async function websocketNode(): Promise<Path> {
  const info: Record<string, unknown> = {};
  const context: NodeContext = {
    streamId: 's',
    nodeId: 'ws',
    config: { port: 0 },
    dataDir: '/tmp',
    emit: () => undefined,
    log: () => undefined,
    fail: (error) => {
      throw error;
    },
    setInfo: (fields) => Object.assign(info, fields),
    countDropped: () => undefined,
    trackProcessGroup: () => undefined,
    untrackProcessGroup: () => undefined,
  };
  const node: NodeInstance = createWebSocketOutput(context);
  await node.start();
  closers.push(() => node.stop());
  const reader = await read(`ws://127.0.0.1:${String(info.port)}/`);
  await eventually(() => info.clients === 1, 10_000, 'the websocket node to count its client');
  return { name: 'websocket node', reader, send: (frame) => node.onFrame?.('in', frame) };
}

async function quickStream(): Promise<Path> {
  let tap: ((frame: Frame) => void) | undefined;
  const config = parseQuickStart({ channels: ['O1', 'O2'] }, ['O1', 'O2']);
  const session = new QuickSession('q', config, {
    tap: (_stream, _node, onFrame) => {
      tap = onFrame;
      return () => undefined;
    },
  });
  session.beginRun();
  closers.push(() => {
    session.dispose('test over');
  });
  let added = false;
  const port = await serverFor((socket) => {
    session.addClient(socket);
    added = true;
  });
  const reader = await read(`ws://127.0.0.1:${port}/`);
  await eventually(() => added, 10_000, 'the quick stream to take its client');
  return { name: 'quick stream', reader, send: (frame) => tap?.(frame) };
}

async function deviceSocket(): Promise<Path> {
  let send: ((frame: Frame) => void) | undefined;
  const live: LiveSockets = liveFrameSockets((listener) => {
    send = listener;
    return () => {
      send = undefined;
    };
  });
  closers.push(() => {
    live.close();
  });
  const port = await serverFor((socket) => {
    live.add(socket);
  });
  const reader = await read(`ws://127.0.0.1:${port}/`);
  await eventually(() => send !== undefined, 10_000, 'the live socket to subscribe');
  return { name: 'GET /system/sensors/eeg/stream', reader, send: (frame) => send?.(frame) };
}

beforeAll(async () => {
  paths.push(await websocketNode(), await quickStream(), await deviceSocket());
});

afterAll(async () => {
  for (const { reader } of paths) reader.client.terminate();
  for (const close of closers.reverse()) await close();
});

/** Sends `frame` on every path and answers each path's message. */
async function sendEverywhere(frame: Frame): Promise<Record<string, string>> {
  const before = paths.map((p) => p.reader.texts.length);
  for (const p of paths) p.send(frame);
  await eventually(
    () => paths.every((p, i) => p.reader.texts.length > (before[i] ?? 0)),
    10_000,
    'a message on every socket',
  );
  return Object.fromEntries(paths.map((p, i) => [p.name, p.reader.texts[before[i] ?? 0] as string]));
}

describe('the three sockets send the same text for the same frame, as docs/api.md §Frames shows', () => {
  test('the documented examples, byte for byte on every socket', async () => {
    const examples = documentedExamples();
    expect(examples.length).toBeGreaterThanOrEqual(2);
    for (const example of examples) {
      // The documentation writes each sample as its shortest float32 text, as the sockets do.
      const sent = await sendEverywhere(frameFromJson(JSON.parse(example) as FrameJson));
      for (const text of Object.values(sent)) expect(text).toBe(example);
    }
  });

  test('a frame with every optional field and samples of no value', async () => {
    const frame: Frame = {
      seq: 41,
      timestamp: 1763712000123.5,
      sampleRate: 250,
      channels: ['O1', 'ACC.x'],
      data: Float32Array.of(1.5, Number.NaN, Number.NEGATIVE_INFINITY, 3, -0, Number.POSITIVE_INFINITY),
      units: ['µV', 'm/s²'],
      discontinuity: true,
      marker: { text: 'stim "a"', timestamp: 1763712000100 },
      annotation: 'SSVEP 12 Hz',
      // Carried inside headsetd, never part of the JSON text form.
      range: 1000,
      highpass: 1,
      lostSamples: 3,
      createdAt: 12345.6,
    };
    // The fields of the §Frames table, in its order; no value as the documented strings.
    const expected = JSON.stringify({
      seq: 41,
      timestamp: 1763712000123.5,
      sampleRate: 250,
      channels: ['O1', 'ACC.x'],
      data: [
        [1.5, 'NaN'],
        ['-Infinity', 3],
        [0, 'Infinity'],
      ],
      units: ['µV', 'm/s²'],
      discontinuity: true,
      marker: { text: 'stim "a"', timestamp: 1763712000100 },
      annotation: 'SSVEP 12 Hz',
    });
    const sent = await sendEverywhere(frame);
    expect(sent).toEqual(Object.fromEntries(paths.map((p) => [p.name, expected])));
  });
});

/**
 * The one encoder: no module of the service writes a frame's JSON text but core/frame.ts
 * (`frameJsonText`). `frameToJson` stays the object form for the package's users and the tests.
 */
test('no module of src/ encodes a frame as JSON text by itself', () => {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (file.endsWith('.ts') && !file.endsWith('.test.ts')) {
        const relative = path.relative(ROOT, file);
        if (relative === 'src/core/frame.ts' || relative === 'src/index.ts') continue;
        const source = readFileSync(file, 'utf8');
        if (/\bframeToJson\s*\(/.test(source)) found.push(relative);
      }
    }
  };
  walk(path.join(ROOT, 'src'));
  expect(found).toEqual([]);
});
