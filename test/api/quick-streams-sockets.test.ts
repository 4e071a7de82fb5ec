/**
 * The quick streams' WebSockets on a listening app (FakeRuntime): frames to clients, slow clients
 * losing frames, clients closed on stop; the ingest socket feeding an ingest node and closing on
 * malformed messages; POST /stream/{id}/pipe and its allow-list.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { expectError, json, ok } from './helpers.js';
import { connect, type QuickPlane, quickPlane, refusedUpgrade, testFrame } from './quick-streams-helpers.js';
import { eventually } from '../support/wait.js';

let cp: QuickPlane;

afterEach(async () => {
  await cp.close();
});

/** GET /stream/{id}/status, parsed. */
async function statusOf(id: string): Promise<Record<string, any>> {
  return JSON.parse((await cp.app.inject({ url: `/stream/${id}/status` })).body) as Record<string, any>;
}

async function startQuick(body: unknown): Promise<string> {
  return ok<{ streamId: string }>(await json(cp, 'POST', '/stream/start', body)).streamId;
}

describe('WebSocket /stream/{streamId}', () => {
  test('sends {timestamp, data, channels, seq, sampleRate} per frame; counts clients; closes on stop', async () => {
    cp = await quickPlane();
    const port = await cp.listen();
    const id = await startQuick({ channels: ['Cz', 'O2'] });
    const client = await connect(`ws://127.0.0.1:${port}/stream/${id}`);
    expect((await statusOf(id)).clients).toBe(1);
    cp.runtime.emitTap(id, 'tap', testFrame(0, 2, ['CZ', 'O2'], 0));
    cp.runtime.emitTap(id, 'tap', testFrame(1, 1, ['CZ', 'O2'], 5));
    await eventually(() => client.messages.length >= 2, 3000, 'two messages');
    expect(client.messages[0]).toEqual({
      seq: 0,
      timestamp: 1_700_000_000_000,
      sampleRate: 250,
      channels: ['CZ', 'O2'],
      data: [
        [0, 1],
        [10, 11],
      ],
    });
    expect(client.messages[1]).toMatchObject({ seq: 1, data: [[5, 6]] });
    ok(await json(cp, 'POST', `/stream/${id}/stop`));
    const closed = await client.closed;
    expect(closed.code).toBe(1001);
    expect(closed.reason).toMatch(/stopped/);
    // A stopped stream takes no new clients.
    const late = await connect(`ws://127.0.0.1:${port}/stream/${id}`);
    expect((await late.closed).code).toBe(1001);
  });

  test('a client that does not read loses frames (counted); a reading one gets them all in order', async () => {
    cp = await quickPlane({ clientSendLimitBytes: 64 * 1024 });
    const port = await cp.listen();
    const channels = ['FP1', 'FP2', 'F3', 'F4', 'C3', 'C4', 'P3', 'P4'];
    const id = await startQuick({ channels });
    const reader = await connect(`ws://127.0.0.1:${port}/stream/${id}`);
    const stalled = await connect(`ws://127.0.0.1:${port}/stream/${id}`);
    const raw = (stalled.socket as unknown as { _socket: { pause(): void } })._socket;
    raw.pause();
    try {
      // About 20 MB of JSON: far more than the kernel's socket buffers hold for the stalled client.
      const frames = 100;
      for (let i = 0; i < frames; i++) {
        cp.runtime.emitTap(id, 'tap', testFrame(i, 4000, channels));
        await new Promise((r) => setImmediate(r));
      }
      await eventually(() => reader.messages.length >= frames, 30_000, 'every frame at the reader');
      expect(reader.messages.map((m) => (m as { seq: number }).seq)).toEqual([...Array(frames).keys()]);
      expect((await statusOf(id)).framesDropped).toBeGreaterThan(0);
    } finally {
      stalled.socket.terminate();
      reader.socket.terminate();
    }
  }, 60_000);

  test('unknown streams and other streams are refused before the upgrade (404)', async () => {
    cp = await quickPlane();
    const port = await cp.listen();
    expect(await refusedUpgrade(`ws://127.0.0.1:${port}/stream/0d9a7c1e-2b3f-4a5b-8c6d-7e8f9a0b1c2d`)).toBe(
      404,
    );
  });
});

describe('WebSocket /stream/{streamId}/ingest', () => {
  test('frames go to the ingest node; a wrong channel set closes with 1008 and a reason', async () => {
    cp = await quickPlane();
    const port = await cp.listen();
    const id = await startQuick({ source: 'ingest', channels: ['Cz', 'Pz'] });
    const sender = await connect(`ws://127.0.0.1:${port}/stream/${id}/ingest`);
    const frame = {
      seq: 4,
      timestamp: 1_700_000_000_000,
      sampleRate: 250,
      channels: ['cz', 'PZ'],
      data: [
        [1, 2],
        [3.5, -4],
      ],
    };
    sender.socket.send(JSON.stringify(frame));
    sender.socket.send(JSON.stringify({ ...frame, seq: 5, metadata: { unit: 'uV' } }));
    await eventually(() => cp.runtime.fed.length >= 2, 3000, 'fed frames');
    const fed = cp.runtime.fed[0];
    expect(fed?.streamId).toBe(id);
    expect(fed?.nodeId).toBe('source');
    expect(Array.from(fed?.frame.data ?? [])).toEqual([1, 2, 3.5, -4]);
    expect(fed?.frame.channels).toEqual(['cz', 'PZ']);
    expect((await statusOf(id)).ingest).toEqual({ clients: 1, frames: 2 });
    sender.socket.send(JSON.stringify({ ...frame, channels: ['CZ', 'O1'] }));
    const closed = await sender.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason).toMatch(/message 3: channels CZ,O1: this stream ingests Cz,Pz/);
    expect(cp.runtime.fed).toHaveLength(2);
  });

  test.each([
    ['not json', 1007, /not JSON/],
    ['[1,2]', 1007, /JSON object/],
    [
      '{"timestamp":1700000000000,"sampleRate":250,"channels":["CZ","PZ"],"data":[[1]]}',
      1007,
      /row 0 must hold 2 numbers/,
    ],
    [
      '{"timestamp":1700000000000,"sampleRate":250,"channels":["CZ","PZ"],"data":[[1,"x"]]}',
      1007,
      /data\[0\]\[1\]/,
    ],
    ['{"timestamp":"now","sampleRate":250,"channels":["CZ","PZ"],"data":[]}', 1007, /timestamp/],
    [
      '{"timestamp":1700000000000,"sampleRate":250,"channels":["CZ","PZ"],"data":[],"extra":1}',
      1007,
      /unknown field 'extra'/,
    ],
    [
      '{"timestamp":1700000000000,"sampleRate":500,"channels":["CZ","PZ"],"data":[]}',
      1008,
      /sampleRate 500 Hz/,
    ],
  ])('%s → close %i', async (message, code, reason) => {
    cp = await quickPlane();
    const port = await cp.listen();
    const id = await startQuick({ source: 'ingest', channels: ['Cz', 'Pz'] });
    const sender = await connect(`ws://127.0.0.1:${port}/stream/${id}/ingest`);
    sender.socket.send(message);
    const closed = await sender.closed;
    expect(closed.code).toBe(code);
    expect(closed.reason).toMatch(reason);
    expect(cp.runtime.fed).toHaveLength(0);
    // The service is still there.
    ok(await json(cp, 'GET', `/stream/${id}/status`));
  });

  test('a binary message closes with 1003', async () => {
    cp = await quickPlane();
    const port = await cp.listen();
    const id = await startQuick({ source: 'ingest', channels: ['Cz'] });
    const sender = await connect(`ws://127.0.0.1:${port}/stream/${id}/ingest`);
    sender.socket.send(Buffer.from([1, 2, 3]));
    expect((await sender.closed).code).toBe(1003);
  });

  test('refused before the upgrade: unknown stream 404, no ingest node 404, stopped 409; any stream with an ingest node works', async () => {
    cp = await quickPlane();
    const port = await cp.listen();
    expect(
      await refusedUpgrade(`ws://127.0.0.1:${port}/stream/0d9a7c1e-2b3f-4a5b-8c6d-7e8f9a0b1c2d/ingest`),
    ).toBe(404);
    const eeg = await startQuick({});
    expect(await refusedUpgrade(`ws://127.0.0.1:${port}/stream/${eeg}/ingest`)).toBe(404);
    const ingest = await startQuick({ source: 'ingest' });
    ok(await json(cp, 'POST', `/stream/${ingest}/stop`));
    expect(await refusedUpgrade(`ws://127.0.0.1:${port}/stream/${ingest}/ingest`)).toBe(409);

    const custom = '6f1c2f0e-8a4b-4c1d-9e2f-3a4b5c6d7e8f';
    ok(
      await json(cp, 'POST', '/stream/streams', {
        id: custom,
        nodes: [
          { id: 'a', executable: 'ingest', config: {} },
          { id: 'b', executable: 'ingest', config: {} },
          { id: 'log', executable: 'logger', config: {} },
        ],
        pipes: [
          { id: 'p1', source: 'a', destination: 'log' },
          { id: 'p2', source: 'b', destination: 'log' },
        ],
      }),
    );
    ok(await json(cp, 'POST', `/stream/streams/${custom}/signal`, { signal: 'start' }));
    await cp.manager.settle();
    expect(await refusedUpgrade(`ws://127.0.0.1:${port}/stream/${custom}/ingest`)).toBe(400);
    const sender = await connect(`ws://127.0.0.1:${port}/stream/${custom}/ingest?node=b`);
    sender.socket.send(
      JSON.stringify({ timestamp: 1_700_000_000_001, sampleRate: 100, channels: ['x'], data: [[7]] }),
    );
    await eventually(() => cp.runtime.fed.length >= 1, 3000, 'fed frame');
    expect(cp.runtime.fed[0]).toMatchObject({ streamId: custom, nodeId: 'b' });
    sender.socket.close();
  });
});

describe('POST /stream/{streamId}/pipe', () => {
  test('forwards frames to a target ingest socket, reports the pipe in status, DELETE ends it', async () => {
    cp = await quickPlane();
    const port = await cp.listen();
    const source = await startQuick({ channels: ['Cz'] });
    const target = await startQuick({ source: 'ingest', channels: ['Cz'] });
    const answer = ok<{ pipe: { state: string; url: string } }>(
      await json(cp, 'POST', `/stream/${source}/pipe`, {
        target: { host: 'localhost', port, streamId: target },
        format: 'json',
        metadata: { includeChannelMetadata: true },
      }),
    );
    expect(answer.pipe.url).toBe(`ws://localhost:${port}/stream/${target}/ingest`);
    await eventually(
      async () => ((await statusOf(source)).pipe.state === 'open' ? true : undefined),
      5000,
      'pipe open',
    );
    cp.runtime.emitTap(source, 'tap', testFrame(0, 3, ['CZ'], 1));
    cp.runtime.emitTap(source, 'tap', testFrame(1, 3, ['CZ'], 2));
    await eventually(() => cp.runtime.fed.length >= 2, 5000, 'piped frames');
    expect(cp.runtime.fed.map((f) => [f.streamId, Array.from(f.frame.data)])).toEqual([
      [target, [1, 11, 21]],
      [target, [2, 12, 22]],
    ]);
    expect((await statusOf(source)).pipe).toMatchObject({ state: 'open', framesSent: 2, framesDropped: 0 });
    const ended = ok<{ pipe: { state: string } }>(await json(cp, 'DELETE', `/stream/${source}/pipe`));
    expect(ended.pipe.state).toBe('closed');
    expectError(await json(cp, 'DELETE', `/stream/${source}/pipe`), 404, 'forward_not_found');
  });

  test('a target that refuses is retried with backoff and the reason is in the status', async () => {
    cp = await quickPlane();
    const port = await cp.listen();
    const source = await startQuick({ channels: ['Cz'] });
    ok(
      await json(cp, 'POST', `/stream/${source}/pipe`, {
        target: { host: '127.0.0.1', port, streamId: '0d9a7c1e-2b3f-4a5b-8c6d-7e8f9a0b1c2d' },
      }),
    );
    const pipe = await eventually(
      async () => {
        const current = (await statusOf(source)).pipe as { lastError: string | null };
        return current.lastError === null ? undefined : current;
      },
      5000,
      'a failed connection',
    );
    expect(pipe).toMatchObject({
      state: 'reconnecting',
      lastError: expect.stringMatching(/HTTP 404/) as unknown,
    });
  });

  test.each([
    [
      { target: { host: '10.0.0.7', port: 42069, streamId: '0d9a7c1e-2b3f-4a5b-8c6d-7e8f9a0b1c2d' } },
      403,
      'forbidden_origin',
      '/target/host',
    ],
    [
      { target: { host: 'example.com', port: 42069, streamId: '0d9a7c1e-2b3f-4a5b-8c6d-7e8f9a0b1c2d' } },
      403,
      'forbidden_origin',
      '/target/host',
    ],
    [
      { target: { host: '127.0.0.1', port: 42069, streamId: 'nope' } },
      422,
      'validation_failed',
      '/target/streamId',
    ],
    [
      { target: { host: '127.0.0.1', port: 0, streamId: '0d9a7c1e-2b3f-4a5b-8c6d-7e8f9a0b1c2d' } },
      422,
      'validation_failed',
      '/target/port',
    ],
    [
      {
        target: { host: '127.0.0.1', port: 1, streamId: '0d9a7c1e-2b3f-4a5b-8c6d-7e8f9a0b1c2d' },
        format: 'binary',
      },
      422,
      'validation_failed',
      '/format',
    ],
    [
      { target: { host: '127.0.0.1', streamId: '0d9a7c1e-2b3f-4a5b-8c6d-7e8f9a0b1c2d' } },
      400,
      'invalid_request',
      '/target/port',
    ],
    [
      { target: { host: '127.0.0.1', port: 1, streamId: '0d9a7c1e-2b3f-4a5b-8c6d-7e8f9a0b1c2d' }, other: 1 },
      400,
      'invalid_request',
      '/other',
    ],
  ] as const)('%j → %i %s', async (body, status, code, pointer) => {
    cp = await quickPlane();
    const id = await startQuick({});
    const error = expectError(await json(cp, 'POST', `/stream/${id}/pipe`, body), status, code);
    expect(error.error.details?.path).toBe(pointer);
  });

  test('the allow-list is an option; a stopped stream cannot pipe (409)', async () => {
    cp = await quickPlane({ pipeAllowedHosts: ['Headset-2.local'] });
    const id = await startQuick({});
    const target = { port: 42069, streamId: '0d9a7c1e-2b3f-4a5b-8c6d-7e8f9a0b1c2d' };
    expectError(
      await json(cp, 'POST', `/stream/${id}/pipe`, { target: { ...target, host: '127.0.0.1' } }),
      403,
      'forbidden_origin',
    );
    ok(await json(cp, 'POST', `/stream/${id}/pipe`, { target: { ...target, host: 'headset-2.local' } }));
    ok(await json(cp, 'POST', `/stream/${id}/stop`));
    expectError(
      await json(cp, 'POST', `/stream/${id}/pipe`, { target: { ...target, host: 'headset-2.local' } }),
      409,
      'invalid_state',
    );
  });

  // Not tested here: a pipe without the token, refused 401 by the target. It works (the refusal is
  // retried like the 404 above), but an upgrade refused by the security hook leaves its socket open
  // and the target app's close() then hangs (reported: hook order in api/app.ts).
  test.each([
    ['the request', { pipeToken: undefined }, { token: 'secret-token' }],
    ['the plugin option', { pipeToken: 'secret-token' }, {}],
  ] as const)('the target token from %s goes as ?token=', async (_from, plugin, target) => {
    cp = await quickPlane({ token: 'secret-token', ...(plugin.pipeToken === undefined ? {} : plugin) });
    const port = await cp.listen();
    const auth = { authorization: 'Bearer secret-token' };
    const call = async (method: 'GET' | 'POST', url: string, payload?: object) =>
      JSON.parse(
        (await cp.app.inject({ method, url, headers: auth, ...(payload === undefined ? {} : { payload }) }))
          .body,
      ) as Record<string, any>;
    const source = (await call('POST', '/stream/start', { channels: ['Cz'] })).streamId as string;
    const ingest = (await call('POST', '/stream/start', { source: 'ingest', channels: ['Cz'] }))
      .streamId as string;
    const piped = await call('POST', `/stream/${source}/pipe`, {
      target: { host: '127.0.0.1', port, streamId: ingest, ...target },
    });
    expect(piped.success).toBe(true);
    await eventually(
      async () => ((await call('GET', `/stream/${source}/status`)).pipe.state === 'open' ? true : undefined),
      5000,
      'pipe open',
    );
    cp.runtime.emitTap(source, 'tap', testFrame(0, 2, ['CZ'], 3));
    await eventually(() => cp.runtime.fed.length >= 1, 3000, 'piped frame');
    expect(Array.from(cp.runtime.fed[0]?.frame.data ?? [])).toEqual([3, 13]);
  });

  test('the routes are in the OpenAPI document', async () => {
    cp = await quickPlane();
    const doc = JSON.parse((await cp.app.inject({ url: '/openapi.json' })).body) as {
      paths: Record<string, unknown>;
    };
    for (const path of [
      '/stream/start',
      '/stream/{streamId}',
      '/stream/{streamId}/data',
      '/stream/{streamId}/status',
      '/stream/{streamId}/stop',
      '/stream/{streamId}/pipe',
      '/stream/{streamId}/ingest',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });
});
