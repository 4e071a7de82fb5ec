/**
 * A hundred streams at once on the real service (signal generator → websocket node, 8 channels at
 * a low rate): all of them run and deliver frames to a client of their own, the API keeps answering
 * while they do, and they all stop cleanly (state `stopped`, no node left running), as does the
 * service on SIGTERM.
 */
import { afterEach, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { listeningPorts } from '../support/ports.js';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

const COUNT = 100;
let service: Service | undefined;
afterEach(async () => {
  await service?.stop('SIGKILL');
  service = undefined;
});

const idOf = (i: number) => `bbbbbbbb-0000-4000-8000-${String(i).padStart(12, '0')}`;

function post(url: string, body: unknown) {
  return json(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The first message of the websocket node at `port`. */
function firstFrame(port: number): Promise<{ channels: string[]; data: number[][] }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
    socket.once('message', (data) => {
      socket.terminate();
      resolve(JSON.parse((data as Buffer).toString('utf8')) as { channels: string[]; data: number[][] });
    });
    socket.once('error', reject);
  });
}

test('100 streams run together, each delivering frames; the API answers; all stop cleanly', async () => {
  service = await startService();
  const { url } = service;
  const ids = Array.from({ length: COUNT }, (_, i) => idOf(i + 1));
  // Sent together, as a dashboard starting its streams would.
  const created = await Promise.all(
    ids.map((id) =>
      post(`${url}/stream/streams`, {
        id,
        nodes: [
          {
            id: 'gen',
            executable: 'signal-generator',
            config: { sampleRate: 50, amplitudes: [1], frequencies: [2], channels: 8 },
          },
          { id: 'ws', executable: 'websocket', config: { port: 0 } },
        ],
        pipes: [{ id: 'p', source: 'gen', destination: 'ws' }],
      }),
    ),
  );
  expect(created.map((c) => c.status)).toEqual(ids.map(() => 200));
  const started = await Promise.all(
    ids.map((id) => post(`${url}/stream/streams/${id}/signal`, { signal: 'start' })),
  );
  expect(started.map((s) => s.status)).toEqual(ids.map(() => 200));

  // Every stream runs with both nodes, each on a port of its own.
  // A start answers within its wait (1 s), which a busy machine starting 100 streams may exceed: the
  // states say when they all run.
  const statuses = await eventually(
    async () => {
      const read = await Promise.all(ids.map((id) => json(`${url}/stream/streams/${id}/status`)));
      return read.every(({ body }) => body.status.state === 'running') ? read : undefined;
    },
    60_000,
    'every stream running',
  );
  const ports = statuses.map(({ body }) => {
    expect(body.status.state).toBe('running');
    expect(body.status.nodes.map((n: { state: string }) => n.state)).toEqual(['running', 'running']);
    return body.status.nodes[1].port as number;
  });
  expect(new Set(ports).size).toBe(COUNT);
  const frames = await Promise.all(ports.map(firstFrame));
  for (const frame of frames) {
    expect(frame.channels).toHaveLength(8);
    expect(frame.data.length).toBeGreaterThan(0);
  }
  // Each websocket node listens in the service's process, beside its API.
  const pid = service.process.pid as number;
  expect(listeningPorts(pid)).toEqual(new Set([service.port, ...ports]));
  // The API answers while they run: the list, and the service's own status.
  const list = await json(`${url}/stream/streams`);
  expect(list.body.streams.filter((s: { state: string }) => s.state === 'running')).toHaveLength(COUNT);
  expect((await json(`${url}/system/status`)).status).toBe(200);

  const stopped = await Promise.all(
    ids.map((id) => post(`${url}/stream/streams/${id}/signal`, { signal: 'stop' })),
  );
  expect(stopped.map((s) => s.status)).toEqual(ids.map(() => 200));
  const after = await eventually(
    async () => {
      const read = await Promise.all(ids.map((id) => json(`${url}/stream/streams/${id}/status`)));
      return read.every(({ body }) => body.status.state !== 'stopping') ? read : undefined;
    },
    60_000,
    'every stop ended',
  );
  for (const { body } of after) {
    expect(body.status.state).toBe('stopped');
    expect(body.status.nodes.map((n: { state: string }) => n.state)).toEqual(['terminated', 'terminated']);
  }
  // Their ports are closed, and the service listens on its API port alone.
  expect([...listeningPorts(pid)]).toEqual([service.port]);
  expect(await service.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  // Nothing went wrong on the way: no error logged (pino levels 50 and 60).
  expect(service.stderr.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);
  // A deadline for a stuck run: starting 100 streams on a busy 2-core machine takes a while.
}, 180_000);
