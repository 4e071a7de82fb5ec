/**
 * A live amplifier read in the device's thread, against the built service (`--device lsl:…`, a
 * liblsl 1.12 outlet pushing at its rate; `--device cyton:…`, the board emulator on a socat
 * pseudo-terminal pair): the stream that reads it runs in that thread too, so while its samples
 * stream into the stream's websocket node no worker thread runs the stream (none answers its
 * start) and the main thread (the API's event loop) receives no frame from the device's thread,
 * only the driver's answers and state; a listener there (the live socket
 * /system/sensors/eeg/stream) makes the frames come to it. The messages are counted inside the
 * service by a preloaded module (test/support/thread-message-tally.mjs), not timed.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import WebSocket from 'ws';
import { FrameClient } from '../runtime/helpers.js';
import { openCytonPort } from '../../src/device/cyton/link.js';
import type { SerialLink } from '../../src/device/cyton/link.js';
import { CytonEmulator } from '../support/cyton-emulator.js';
import { liblslEnv, liblslOf, LslTool, pacedOutletArgs, skipWithout } from '../support/liblsl.js';
import { type PtyPair, ptyPair } from '../support/pty-pair.js';
import { signalStream, websocketPort } from '../support/live-e2e.js';
import { json, ROOT, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

const PORTS = { multicastPort: 38571, basePort: 38572, portRange: 16 };
const RATE = 250;
const LABELS = 'Fp1,Fp2,C3,C4';
const STREAM = '7a3c9e15-2b4d-4f6a-8c1e-9d0f1a2b3c4d';
const TALLY_HOOK = path.join(ROOT, 'test', 'support', 'thread-message-tally.mjs');

const running: {
  tools: LslTool[];
  service?: Service | undefined;
  sockets: WebSocket[];
  board?: { pair: PtyPair; link: SerialLink; emulator: CytonEmulator } | undefined;
} = {
  tools: [],
  sockets: [],
};

afterEach(async () => {
  for (const socket of running.sockets.splice(0)) socket.close();
  await running.service?.stop();
  running.service = undefined;
  for (const tool of running.tools.splice(0)) tool.kill();
  const board = running.board;
  running.board = undefined;
  if (board !== undefined) {
    board.emulator.stop();
    await board.link.close();
    await board.pair.kill();
  }
});

/** The messages the service's main thread has received from its threads so far, by kind. */
async function tally(service: Service, file: string): Promise<Record<string, number>> {
  rmSync(file, { force: true });
  service.process.kill('SIGUSR2');
  await eventually(() => existsSync(file), 10_000, 'the tally written');
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
}

test('LSL frames are read and streamed in the device’s thread; the main thread gets them only for its own listener', async (context) => {
  skipWithout('1.12', context);
  const { lib, tool } = await liblslOf('1.12');
  const env = liblslEnv(PORTS);
  const name = 'Thread EEG';
  // 4 channels at 250 Hz in real time, 5 samples a chunk, for two minutes (the test ends sooner).
  const outlet = new LslTool(
    tool,
    pacedOutletArgs(lib, {
      name,
      source: 'thread-eeg',
      channels: 4,
      rate: RATE,
      count: RATE * 120,
      chunk: 5,
      stamps: 'push',
      labels: LABELS,
    }),
    env,
    true,
  );
  running.tools.push(outlet);
  await outlet.waitFor('READY');
  // Read by the outlet once the device's inlet is there.
  outlet.send('go');

  const file = path.join(scratchDir('headsetd-tally'), 'tally.json');
  await framesOffTheMainThread(['--device', `lsl:name=${name}`], file, { lsl: PORTS });
});

test('Cyton frames are read from the serial port and streamed in the device’s thread', async () => {
  const pair = await ptyPair();
  const link = await openCytonPort(pair.board);
  running.board = { pair, link, emulator: new CytonEmulator(link) };
  const file = path.join(scratchDir('headsetd-tally'), 'tally.json');
  await framesOffTheMainThread(['--device', `cyton:${pair.host}`], file, {});
});

/**
 * Starts the service on `args` with the tally hook, streams the device into a websocket node and
 * checks that no frame reached the main thread until its own listener (the live socket) wanted them.
 */
async function framesOffTheMainThread(
  args: string[],
  file: string,
  options: { lsl?: typeof PORTS },
): Promise<void> {
  const service = await startService({
    ...options,
    wrapper: ['env', `NODE_OPTIONS=--import=${TALLY_HOOK}`, `HEADSETD_TALLY=${file}`],
    args,
  });
  running.service = service;

  const created = await json(`${service.url}/stream/streams`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: STREAM,
      meta: { name: 'device thread' },
      nodes: [
        { id: 'eeg', executable: 'eeg-source' },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
      ],
      pipes: [{ id: 'p1', source: 'eeg', destination: 'ws' }],
    }),
  });
  expect(created.status).toBe(200);
  await signalStream(service, STREAM, 'start');
  const port = await websocketPort(service, STREAM);
  const client = await FrameClient.connect(port);
  running.sockets.push(client.socket);
  await eventually(() => client.frames.length >= 100, 60_000, '100 frames at the websocket node');

  // The driver was opened and started in the device's thread (its answers came), the stream ran
  // there too (no worker thread answered its start: a stream worker's replies are counted), and of
  // the frames that reached the websocket client, none passed through the main thread.
  const streaming = await tally(service, file);
  expect(streaming.answer ?? 0).toBeGreaterThanOrEqual(2);
  expect(streaming.reply ?? 0).toBe(0);
  expect(streaming['device-frame'] ?? 0).toBe(0);

  // A listener on the main thread (the live socket) makes the frames come to it.
  const live = new WebSocket(`${service.url.replace('http', 'ws')}/system/sensors/eeg/stream`);
  running.sockets.push(live);
  let heard = 0;
  live.on('message', () => {
    heard++;
  });
  await eventually(() => heard >= 10, 60_000, '10 frames on the live socket');
  const listening = await tally(service, file);
  expect(listening['device-frame'] ?? 0).toBeGreaterThanOrEqual(10);

  await signalStream(service, STREAM, 'stop');
}
