/**
 * The `osc` node end to end: the real service runs signal-generator → osc and → websocket; what
 * python3-liblo decodes from the datagrams equals, sample for sample, the frames a WebSocket
 * client of the same stream receives: the address of each channel, float32 values, and each
 * sample's bundle time tag equal to the frame's sample time in NTP.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { FrameClient } from '../runtime/helpers.js';
import { libloReceiver, type OscReceiver, type ReceivedOsc } from '../support/osc-receiver.js';
import { json, type Service, sendJson, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

const NTP_OFFSET = 2_208_988_800;
let service: Service;
let rx: OscReceiver<ReceivedOsc>;

beforeAll(async () => {
  [service, rx] = await Promise.all([startService(), libloReceiver()]);
});

afterAll(async () => {
  await Promise.all([service.stop('SIGKILL'), rx.close()]);
});

test('signal-generator → osc: liblo decodes every sample of the frames a WebSocket client sees', {
  timeout: 60_000,
}, async () => {
  const id = '1f2e3d4c-5b6a-4789-8a9b-0c1d2e3f4a5b';
  const created = await sendJson('POST', `${service.url}/stream/streams`, {
    id,
    meta: { name: 'osc end to end' },
    nodes: [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: {
          sampleRate: 250,
          amplitudes: [50],
          frequencies: [10],
          channels: 2,
          channelNames: ['O1.alpha', 'Cz'],
          noise: 3,
          seed: 7,
        },
      },
      { id: 'osc', executable: 'osc', config: { port: rx.port, address: '/e2e' } },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
    ],
    pipes: [
      { id: 'p1', source: 'gen', destination: 'osc' },
      { id: 'p2', source: 'gen', destination: 'ws' },
    ],
  });
  expect(created.status).toBe(200);
  expect(
    (await sendJson('POST', `${service.url}/stream/streams/${id}/signal`, { signal: 'start' })).status,
  ).toBe(200);
  const port = await eventually(async () => {
    const status = await json(`${service.url}/stream/streams/${id}/status`);
    return (status.body.status.nodes as { id: string; port?: number }[]).find((n) => n.id === 'ws')?.port;
  });
  const client = await FrameClient.connect(port);
  await eventually(() => client.frames.length >= 5, 20_000, 'five frames on the WebSocket');
  client.close();
  const frames = client.frames.slice(0, 5).map((r) => r.frame);
  const last = frames[frames.length - 1]!;
  const lastTime = (last.timestamp + ((last.data.length - 1) * 1000) / last.sampleRate) / 1000 + NTP_OFFSET;
  // The datagrams of those frames were sent before the frames reached the WebSocket client or
  // soon after: wait until liblo has decoded a sample at or past the last one's time.
  await eventually(
    () => rx.messages.some((m) => (m.tags[1] ?? 0) >= lastTime - 1e-6),
    20_000,
    'the OSC messages of those frames',
  );
  // Should a sample's messages be missing, the message says what the osc node counted (sent,
  // dropped, refused) and what liblo received: a run once lacked some, with nothing to tell why.
  const oscMetrics = async () => {
    const status = await json(`${service.url}/stream/streams/${id}/status`);
    return (status.body.status.nodes as { id: string; metrics: Record<string, number> }[]).find(
      (n) => n.id === 'osc',
    )?.metrics;
  };
  const times = rx.messages.map((m) => m.tags[1] ?? 0);
  const seen = `liblo got ${rx.messages.length} messages (${Math.min(...times) - NTP_OFFSET}…${Math.max(...times) - NTP_OFFSET} s)`;
  let compared = 0;
  for (const frame of frames) {
    for (const [i, row] of frame.data.entries()) {
      const time = (frame.timestamp + (i * 1000) / frame.sampleRate) / 1000 + NTP_OFFSET;
      const atTime = rx.messages.filter((m) => Math.abs((m.tags[1] ?? 0) - time) < 1e-6);
      if (atTime.length !== 2)
        expect.fail(
          `sample at ${time - NTP_OFFSET} s (frame seq ${frame.seq}, row ${i}): ${atTime.length} messages; ${seen}; osc node ${JSON.stringify(await oscMetrics())}`,
        );
      expect(atTime.map((m) => m.path)).toEqual(['/e2e/O1/alpha', '/e2e/Cz']);
      atTime.forEach((m, c) => {
        expect(m.types).toBe('f');
        // The JSON frame's number is the float32 value itself.
        expect(m.args[0]).toBe(Math.fround(Number(row[c])));
        compared++;
      });
    }
  }
  expect(compared).toBeGreaterThan(8);
  const metrics = await oscMetrics();
  expect(metrics?.datagramsSent).toBeGreaterThan(0);
  expect(metrics?.sendErrors ?? 0).toBe(0);
});
