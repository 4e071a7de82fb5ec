/**
 * docs/tutorial-bci.md as a reader runs it: both YAML documents read from the page and sent as
 * written to a running service on the seated simulated headset, the wearer played with
 * /simulator/stimulus. The SSVEP selector detects the 12 Hz the wearer looks at (and nothing
 * before); the alpha neurofeedback's share of alpha is higher with closed eyes than with open ones
 * at O1 and O2, and its OSC datagrams reach UDP port 9000 with the page's addresses.
 */
import { createSocket, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { parse } from 'yaml';
import { json, ROOT, type Service, sendJson, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

const PAGE = readFileSync(path.join(ROOT, 'docs', 'tutorial-bci.md'), 'utf8');

/** The page's YAML block whose first line is `# <name>`. */
function block(name: string): string {
  const found = [...PAGE.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  const text = found.find((b) => b.startsWith(`# ${name}\n`));
  if (text === undefined) throw new Error(`docs/tutorial-bci.md has no YAML block ${name}`);
  return text;
}

interface FrameMessage {
  timestamp: number;
  channels: string[];
  data: (number | string)[][];
  units?: string[];
  annotation?: string;
}

let service: Service;
const sockets: WebSocket[] = [];
let udp: Socket | undefined;

beforeAll(async () => {
  service = await startService({ args: ['--device', 'simulated:seated', '--seed', '3'] });
});
afterAll(async () => {
  for (const socket of sockets) socket.terminate();
  udp?.close();
  await service.stop();
});

/** Creates the page's stream as written (POST .../yaml) and starts it; returns its frames as they come. */
async function run(name: string): Promise<{ id: string; frames: FrameMessage[] }> {
  const yaml = block(name);
  const id = (parse(yaml) as { id: string }).id;
  const created = await json(`${service.url}/stream/streams/yaml`, {
    method: 'POST',
    headers: { 'content-type': 'text/yaml' },
    body: yaml,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const started = await sendJson('POST', `${service.url}/stream/streams/${id}/signal`, { signal: 'start' });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const port = await eventually(
    async () => {
      const status = await sendJson('GET', `${service.url}/stream/streams/${id}/status`);
      return (status.body.status.nodes as { id: string; port?: number }[]).find((n) => n.id === 'app')?.port;
    },
    30_000,
    `the app node of ${name} listening`,
  );
  const frames: FrameMessage[] = [];
  const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
  sockets.push(socket);
  socket.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString('utf8')) as FrameMessage));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return { id, frames };
}

async function stimulus(body: Record<string, unknown>): Promise<number> {
  const answer = await sendJson('POST', `${service.url}/simulator/stimulus`, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return Date.now();
}

const value = (f: FrameMessage, channel: string): number => Number(f.data[0]?.[f.channels.indexOf(channel)]);

test('the SSVEP selector, as written, detects the 12 Hz target the wearer looks at', async () => {
  const { id, frames } = await run('ssvep-selector.yaml');
  await eventually(() => frames.length >= 4, 30_000, 'the first windows');
  expect(frames[0]?.channels).toEqual([
    'score.8.57Hz',
    'score.12Hz',
    'score.15Hz',
    'frequency.top',
    'frequency.detected',
  ]);
  expect(frames[0]?.units).toEqual(['1', '1', '1', 'Hz', 'Hz']);
  expect(frames.filter((f) => value(f, 'frequency.detected') !== 0)).toEqual([]);

  const since = await stimulus({ frequency: 12 });
  const hit = await eventually(
    () => frames.find((f) => f.timestamp >= since && value(f, 'frequency.detected') === 12),
    60_000,
    'a detection of 12 Hz',
  );
  // The frame that starts the detection says so, as the page tells.
  expect(frames.some((f) => f.annotation === 'SSVEP 12 Hz' && f.timestamp <= hit.timestamp)).toBe(true);
  await stimulus({ frequency: null });
  await sendJson('POST', `${service.url}/stream/streams/${id}/signal`, { signal: 'stop' });
}, 120_000);

test('the alpha neurofeedback, as written, gives a larger share of alpha with closed eyes, over OSC at port 9000', async () => {
  // The page's receiver: UDP 9000 on loopback.
  const datagrams: Buffer[] = [];
  udp = createSocket('udp4');
  udp.on('message', (message) => datagrams.push(message));
  await new Promise<void>((resolve) => udp?.bind(9000, '127.0.0.1', resolve));

  const { frames } = await run('alpha-feedback.yaml');
  const share = (from: number, channel: string): number[] =>
    frames.filter((f) => f.timestamp >= from).map((f) => value(f, channel));

  // Open eyes: windows that start after the request (and its latency) are wholly open-eyed.
  const open = (await stimulus({ eyes: 'open' })) + 1000;
  await eventually(() => share(open + 2000, 'O1.alpha').length >= 4, 60_000, 'four open-eyed windows');
  const closed = (await stimulus({ eyes: 'closed' })) + 1000;
  await eventually(() => share(closed + 2000, 'O1.alpha').length >= 4, 60_000, 'four closed-eyed windows');

  expect(frames[0]?.channels).toEqual(['O1.alpha', 'O2.alpha']);
  expect(frames[0]?.units).toEqual(['1', '1']);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  for (const channel of ['O1.alpha', 'O2.alpha']) {
    const eyesOpen = share(open + 2000, channel).slice(0, 4);
    const eyesClosed = share(closed + 2000, channel).slice(0, 4);
    console.log(`${channel}: open ${mean(eyesOpen).toFixed(3)}, closed ${mean(eyesClosed).toFixed(3)}`);
    for (const v of [...eyesOpen, ...eyesClosed]) {
      expect(v).toBeGreaterThan(0);
      expect(v).toBeLessThan(1);
    }
    expect(mean(eyesClosed)).toBeGreaterThan(mean(eyesOpen));
  }
  // OSC at the page's addresses (the osc node's encoding is checked against liblo in its own tests).
  await eventually(() => datagrams.length >= 4, 30_000, 'OSC datagrams at port 9000');
  const text = Buffer.concat(datagrams).toString('latin1');
  expect(text).toContain('/feedback/O1/alpha\0');
  expect(text).toContain('/feedback/O2/alpha\0');
  expect(text.startsWith('#bundle\0')).toBe(true);
}, 180_000);
