/**
 * Lifecycle answers of the real service (`dist/cli.js`, real worker threads, real sockets), where
 * the control-plane tests' fake runtime once hid a disagreement: a websocket node whose port is
 * taken fails the start (answered as such, the node in error naming the port); a node left in
 * error makes the running stream degraded; stopping or deleting a stream closes its websocket
 * clients with 1001; a stream restored in error at start-up is logged at warn.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { json, type Service, startService, tempDataDir } from '../support/service.js';
import { eventually } from '../support/wait.js';
import { unusedPort } from '../support/ports.js';

const ID = 'dddddddd-0000-4000-8000-000000000001';

/**
 * One service for the cases about a running service's answers (each deletes its stream after it);
 * the start-up case starts and restarts its own.
 */
let shared: Service | undefined;
let service: Service | undefined;
let blocker: Server | undefined;
afterEach(async () => {
  if (shared !== undefined) await json(`${shared.url}/stream/streams/${ID}`, { method: 'DELETE' });
  await service?.stop('SIGKILL');
  service = undefined;
  blocker?.close();
  blocker = undefined;
});
afterAll(async () => {
  await shared?.stop('SIGKILL');
});

async function sharedService(): Promise<Service> {
  shared ??= await startService();
  return shared;
}

/** A port held by another listener of this machine. */
async function takenPort(): Promise<number> {
  const server = createServer();
  blocker = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening');
  return address.port;
}

function generatorToWebSocket(port: number) {
  return {
    id: ID,
    nodes: [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 100, amplitudes: [1], frequencies: [5] },
      },
      { id: 'ws', executable: 'websocket', config: { port } },
    ],
    pipes: [{ id: 'p', source: 'gen', destination: 'ws' }],
  };
}

async function create(s: Service, body: unknown) {
  const answer = await json(`${s.url}/stream/streams`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
}

function signal(s: Service, name: string) {
  return json(`${s.url}/stream/streams/${ID}/signal`, {
    method: 'POST',
    body: new URLSearchParams({ signal: name }),
  });
}

async function status(s: Service) {
  return (await json(`${s.url}/stream/streams/${ID}/status`)).body.status;
}

describe('a websocket node whose port is taken', () => {
  test('fails the start: answered as failed, the stream in error, the node in error naming the port', async () => {
    const port = await takenPort();
    const running = await sharedService();
    await create(running, generatorToWebSocket(port));
    // The first start may boot a worker, which a busy machine may take longer than the signal's
    // wait (0.5 s, docs/api.md §Lifecycle) to do: that start may be answered as under way. Once it
    // has failed, the next start (from `error`) fails within the wait and is answered as failed.
    const first = await signal(running, 'start');
    expect([200, 422]).toContain(first.status);
    await eventually(
      async () => ((await status(running)).state === 'error' ? true : undefined),
      10_000,
      'the first start to fail',
    );
    const started = await signal(running, 'start');
    expect(started.status).toBe(422);
    expect(started.body.error).toMatchObject({
      code: 'validation_failed',
      details: {
        path: '/nodes/1/config/port',
        nodeId: 'ws',
        reason: `port ${port} is already in use`,
        port,
        state: 'error',
        signal: 'start',
      },
    });
    const now = await status(running);
    expect(now.state).toBe('error');
    expect(now.error).toContain(`port ${port} is already in use`);
    const ws = now.nodes.find((n: { id: string }) => n.id === 'ws');
    // It read `terminated` with lastError null.
    expect(ws.state).toBe('error');
    expect(ws.metrics.lastError).toContain(`port ${port} is already in use`);
  }, 30_000);
});

describe('a filter in error at the device rate', () => {
  test('makes the running stream degraded, its error naming the node, and raises stream_degraded', async () => {
    const s = await sharedService();
    const events: { eventType?: string; message?: string }[] = [];
    const socket = new WebSocket(`${s.url.replace('http', 'ws')}/system/events`);
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    socket.on('message', (data: Buffer) => events.push(JSON.parse(data.toString())));
    // The eeg-source follows the device (250 Hz by default): no rate is known at create.
    await create(s, {
      id: ID,
      nodes: [
        { id: 'eeg', executable: 'eeg-source', config: { channels: ['Cz'] } },
        { id: 'filt', executable: 'filter', config: { lowpass: 200 } },
        { id: 'log', executable: 'logger' },
      ],
      pipes: [
        { id: 'p1', source: 'eeg', destination: 'filt' },
        { id: 'p2', source: 'filt', destination: 'log' },
      ],
    });
    expect((await signal(s, 'start')).status).toBe(200);
    const degraded = await eventually(
      async () => {
        const now = await status(s);
        return now.degraded === true ? now : undefined;
      },
      15_000,
      'degraded status',
    );
    expect(degraded.state).toBe('running');
    expect(degraded.error).toContain('node filt is in error');
    expect(degraded.error).toContain('Nyquist');
    const event = await eventually(
      async () => events.find((e) => e.eventType === 'stream_degraded'),
      15_000,
      'stream_degraded',
    );
    expect(event.message).toContain('node filt');
    socket.close();
  }, 40_000);
});

describe('websocket clients of a stream', () => {
  async function connectedClient(s: Service): Promise<{ closed: Promise<{ code: number; reason: string }> }> {
    const port = await eventually(
      async () => {
        const ws = (await status(s)).nodes.find((n: { id: string }) => n.id === 'ws');
        return typeof ws?.port === 'number' ? (ws.port as number) : undefined;
      },
      10_000,
      'bound port',
    );
    const client = new WebSocket(`ws://127.0.0.1:${port}/`);
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      client.once('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
      });
    });
    await new Promise((resolve, reject) => {
      client.once('open', resolve);
      client.once('error', reject);
    });
    return { closed };
  }

  test.each(['stop', 'delete'])(
    'are closed with 1001 and a reason on %s (they saw 1006, no close frame)',
    async (how) => {
      const s = await sharedService();
      await create(s, generatorToWebSocket(0));
      expect((await signal(s, 'start')).status).toBe(200);
      const { closed } = await connectedClient(s);
      if (how === 'stop') expect((await signal(s, 'stop')).status).toBe(200);
      else expect((await json(`${s.url}/stream/streams/${ID}`, { method: 'DELETE' })).status).toBe(200);
      expect(await closed).toEqual({ code: 1001, reason: 'stream node stopped' });
    },
    30_000,
  );
});

describe('start-up', () => {
  test('a stream restored in error is logged at warn with its reason', async () => {
    const dataDir = tempDataDir();
    const free = await unusedPort();
    service = await startService({ dataDir });
    await create(service, generatorToWebSocket(free));
    expect((await signal(service, 'start')).status).toBe(200);
    expect(await service.stop('SIGTERM')).toMatchObject({ code: 0 });

    // Someone else takes the port while the service is down.
    const server = createServer();
    blocker = server;
    await new Promise<void>((resolve) => server.listen(free, '127.0.0.1', resolve));
    service = await startService({ dataDir });
    const s = service;
    const record = await eventually(
      async () =>
        s.stderr
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { level: number; msg: string; streamId?: string })
          .find((r) => r.msg.includes('restored in error')),
      15_000,
      'the warning',
    );
    expect(record).toMatchObject({ level: 40, streamId: ID });
    expect(record.msg).toContain(`port ${free} is already in use`);
    expect((await status(s)).state).toBe('error');
  }, 40_000);
});
