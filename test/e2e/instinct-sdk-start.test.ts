/**
 * The maker's SDK gives `start` 1 s. A stream whose start takes longer (an external node that is
 * slow to come up) was answered only when the start ended, so the SDK timed out; now the answer
 * comes at once (the transition under way), and when the start fails later the failure is the
 * stream's state and error (GET /stream/streams/{id}/status) and a `stream_failed` event of
 * GET /system/events. The reference path answers the same start, and announces its failure, the
 * same way (one signal policy for both faces: docs/api.md §Lifecycle).
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { SDK_TIMEOUT, sdkCall } from '../support/instinct-client.js';
import { modelProblems, StreamResponse } from '../support/instinct-models.js';
import { json, type Service, startService, tempDataDir } from '../support/service.js';
import { eventually } from '../support/wait.js';

let service: Service;
beforeAll(async () => {
  const dataDir = tempDataDir();
  const executables = path.join(dataDir, 'executables');
  mkdirSync(executables, { recursive: true });
  // Comes up slowly, then dies before it is ready: a start that fails well after 1 s.
  const script = path.join(executables, 'slow-then-fail.sh');
  writeFileSync(script, '#!/bin/sh\nsleep 2\nexit 3\n');
  chmodSync(script, 0o755);
  service = await startService({ dataDir });
});
afterAll(async () => {
  await service.stop();
});

/** The service's live events, collected from the moment the socket opens. */
async function eventSocket(): Promise<{
  events: { eventType?: string; message?: string }[];
  socket: WebSocket;
}> {
  const events: { eventType?: string; message?: string }[] = [];
  const socket = new WebSocket(`${service.url.replace('http', 'ws')}/system/events`);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.on('message', (data: Buffer) => {
    events.push(JSON.parse(data.toString()) as { eventType?: string; message?: string });
  });
  return { events, socket };
}

test("start answers within the SDK's 1 s while the start is under way; its later failure is the status and an event", async () => {
  const { events, socket } = await eventSocket();

  const id = randomUUID();
  const node = randomUUID();
  await sdkCall(service.url, 'POST', '/streams/stream', {
    json: {
      id,
      nodes: [{ executable: 'slow-then-fail.sh', config: {}, id: node, meta: null }],
      pipes: [],
      meta: null,
    },
    timeoutMs: SDK_TIMEOUT.createStream,
  });
  const started = await sdkCall(service.url, 'POST', '/streams/stream/start', {
    json: { streamId: id },
    timeoutMs: SDK_TIMEOUT.default,
  });
  expect(modelProblems(StreamResponse, started.body)).toEqual([]);
  expect(started.body).toMatchObject({ success: true, stream: { state: 'starting' } });

  const status = await eventually(
    async () => {
      const { body } = await json(`${service.url}/stream/streams/${id}/status`);
      return body.status.state === 'error' ? body.status : undefined;
    },
    30_000,
    'the start to fail',
  );
  expect(String(status.error)).toMatch(/before announcing 'ready'/);
  const event = await eventually(
    async () => events.find((e) => e.eventType === 'stream_failed' && e.message?.includes(id)),
    10_000,
    'the stream_failed event',
  );
  expect(event.message).toMatch(/failed to start after its answer/);
  socket.close();
}, 60_000);

test('the reference path answers the same slow start as accepted and announces its later failure the same way', async () => {
  const { events, socket } = await eventSocket();
  const id = randomUUID();
  await json(`${service.url}/stream/streams`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id,
      nodes: [{ id: randomUUID(), executable: 'slow-then-fail.sh', config: {} }],
      pipes: [],
    }),
  });
  const started = await json(`${service.url}/stream/streams/${id}/signal`, {
    method: 'POST',
    body: new URLSearchParams({ signal: 'start' }),
  });
  expect(started.body).toEqual({ id, success: true });
  const event = await eventually(
    async () => events.find((e) => e.eventType === 'stream_failed' && e.message?.includes(id)),
    30_000,
    'the stream_failed event',
  );
  expect(event.message).toMatch(new RegExp(`^Stream ${id} failed to start after its answer: `));
  socket.close();
}, 60_000);
