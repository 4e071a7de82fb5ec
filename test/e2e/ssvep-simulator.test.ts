/**
 * The simulated wearer's SSVEP through a running service: eeg-source → ssvep → websocket, read by
 * a WebSocket client while POST /simulator/stimulus makes the wearer look at 12 Hz, then 8.57 Hz,
 * then at nothing. Each flicker is detected; with none, confident detections stay rare.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, expect, test } from 'vitest';
import WebSocket from 'ws';
import { type Service, sendJson, startService } from '../support/service.js';
import { websocketPort } from '../support/live-e2e.js';
import { eventually } from '../support/wait.js';

interface FrameMessage {
  timestamp: number;
  sampleRate: number;
  channels: string[];
  data: (number | string)[][];
}

let service: Service | undefined;
let socket: WebSocket | undefined;
afterEach(async () => {
  socket?.terminate();
  await service?.stop();
  service = undefined;
});

/** Windows with no stimulus looked at, and how many of them may detect one. */
const QUIET_WINDOWS = 24;
const QUIET_DETECTIONS = 3;

test('the ssvep node detects the flicker the simulated wearer looks at, and rarely one when none', async () => {
  service = await startService({ args: ['--device', 'simulated:seated', '--seed', '1'] });
  const s = service;
  const id = randomUUID();
  const created = await sendJson('POST', `${s.url}/stream/streams`, {
    id,
    nodes: [
      { id: 'eeg', executable: 'eeg-source', config: {} },
      { id: 'ssvep', executable: 'ssvep', config: { frequencies: [6.66, 7.5, 8.57, 12, 15] } },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
    ],
    pipes: [
      { id: 'p1', source: 'eeg', destination: 'ssvep' },
      { id: 'p2', source: 'ssvep', destination: 'ws' },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect((await sendJson('POST', `${s.url}/stream/streams/${id}/signal`, { signal: 'start' })).status).toBe(
    200,
  );
  const port = await websocketPort(s, id);
  const frames: FrameMessage[] = [];
  socket = new WebSocket(`ws://127.0.0.1:${port}/`);
  socket.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString('utf8')) as FrameMessage));

  // Samples are float32: 8.57 arrives as 8.569999694824219.
  const detected = (f: FrameMessage) =>
    Math.round(100 * Number(f.data[0]?.[f.channels.indexOf('frequency.detected')])) / 100;
  const look = async (frequency: number | null) => {
    const answer = await sendJson('POST', `${s.url}/simulator/stimulus`, { frequency });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return Date.now();
  };

  for (const frequency of [12, 8.57]) {
    const since = await look(frequency);
    await eventually(
      () => frames.some((f) => f.timestamp >= since && detected(f) === frequency),
      60_000,
      `a detection of ${frequency} Hz`,
    ).catch((error: unknown) => {
      console.log(
        frames
          .slice(-40)
          .map((f) => `${f.timestamp - since} ${f.sampleRate} ${JSON.stringify(f.data[0])}`)
          .join('\n'),
      );
      throw error;
    });
    const hit = frames.find((f) => f.timestamp >= since && detected(f) === frequency);
    console.log(
      `${frequency} Hz detected in the window starting ${((hit?.timestamp ?? 0) - since).toFixed(0)} ms after the request`,
    );
  }
  expect(frames[0]?.channels).toEqual([
    'score.6.66Hz',
    'score.7.5Hz',
    'score.8.57Hz',
    'score.12Hz',
    'score.15Hz',
    'frequency.top',
    'frequency.detected',
  ]);

  // Looking at nothing: windows that start once the last SSVEP has faded (latency + 200 ms < 500 ms).
  const quietFrom = (await look(null)) + 500;
  const quiet = () => frames.filter((f) => f.timestamp >= quietFrom);
  await eventually(
    () => quiet().length >= QUIET_WINDOWS,
    60_000,
    `${QUIET_WINDOWS} windows without a stimulus`,
  );
  const falsePositives = quiet()
    .slice(0, QUIET_WINDOWS)
    .filter((f) => detected(f) !== 0).length;
  console.log(`no stimulus: ${falsePositives} of ${QUIET_WINDOWS} windows detected a frequency`);
  expect(falsePositives).toBeLessThanOrEqual(QUIET_DETECTIONS);
}, 180_000);
