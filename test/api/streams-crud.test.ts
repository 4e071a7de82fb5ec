/**
 * Create, list, read, export, replace and delete (docs/api.md §Paths and shapes), on both mounts:
 * the reference paths under /stream and the guide aliases without it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse as parseYamlText } from 'yaml';
import { type ControlPlane, controlPlane, referenceStream, STREAM_ID } from '../support/control-plane.js';
import {
  call,
  chainStream,
  expectError,
  json,
  ok,
  OTHER_ID,
  PREFIXES,
  readStream,
  signal,
  text,
} from './helpers.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const REFERENCE_YAML = `id: ${STREAM_ID}
meta:
  name: Sine to WebSocket
  tags: [demo]
nodes:
  - id: gen
    type: EXECUTABLE_PRODUCER
    meta: {type: SOURCE}
    executable: node /usr/share/engines/worker-scripts/SignalGenerator.js
    config: {sampleRate: 250, amplitudes: [1], frequencies: [10]}
  - id: ws
    type: EXECUTABLE_CONSUMER
    meta: {type: OUTPUT}
    executable: node /usr/share/engines/worker-scripts/WebSocket.js
    config: {port: 0}
pipes:
  - {id: p, source: gen, destination: ws}
`;

let cp: ControlPlane;
beforeEach(async () => {
  cp = await controlPlane();
});
afterEach(async () => {
  vi.useRealTimers();
  await cp.close();
});

describe.each(PREFIXES)('streams CRUD under "%s/streams"', (prefix) => {
  const base = `${prefix}/streams`;

  it('creates from JSON and answers exactly {id, success}', async () => {
    const body = ok(await json(cp, 'POST', base, referenceStream()));
    expect(body).toEqual({ id: STREAM_ID, success: true });
  });

  it.each(['text/yaml', 'application/yaml', 'application/x-yaml', 'application/yaml; charset=utf-8'])(
    'creates from YAML sent as %s on the main route',
    async (type) => {
      const body = ok(await text(cp, 'POST', base, REFERENCE_YAML, type));
      expect(body).toEqual({ id: STREAM_ID, success: true });
      const stream = await readStream(cp, STREAM_ID);
      expect(stream.nodes.map((n) => n.id)).toEqual(['gen', 'ws']);
      expect(stream.meta.tags).toEqual(['demo']);
    },
  );

  it.each(['text/yaml', 'application/yaml', 'application/x-yaml'])(
    'creates from YAML sent as %s on the /yaml route',
    async (type) => {
      const body = ok(await text(cp, 'POST', `${base}/yaml`, REFERENCE_YAML, type));
      expect(body).toEqual({ id: STREAM_ID, success: true });
      expect((await readStream(cp, STREAM_ID)).pipes).toEqual([
        { id: 'p', source: 'gen', destination: 'ws' },
      ]);
    },
  );

  it('stores and answers an upper-case UUID in lower case', async () => {
    const upper = STREAM_ID.toUpperCase();
    expect(ok(await json(cp, 'POST', base, referenceStream(upper)))).toEqual({
      id: STREAM_ID,
      success: true,
    });
    expect((await readStream(cp, upper)).id).toBe(STREAM_ID);
    expectError(await json(cp, 'POST', base, referenceStream(STREAM_ID)), 409, 'stream_exists');
  });

  it('lists streams as {success, streams: [{id, meta, state}]} (the list had no state)', async () => {
    expect(ok(await json(cp, 'GET', base))).toEqual({ success: true, streams: [] });
    ok(await json(cp, 'POST', base, referenceStream()));
    ok(await json(cp, 'POST', base, chainStream(OTHER_ID)));
    ok(await signal(cp, OTHER_ID, 'start', prefix));
    await cp.manager.settle();
    const body = ok<{ streams: { id: string; meta: Record<string, unknown> }[] }>(
      await json(cp, 'GET', base),
    );
    expect(body).toEqual({
      success: true,
      streams: [
        {
          id: STREAM_ID,
          meta: {
            name: 'Sine to WebSocket',
            description: 'reference example',
            tags: ['demo'],
            version: 1,
            created: expect.stringMatching(ISO),
            updated: expect.stringMatching(ISO),
          },
          state: 'created',
        },
        {
          id: OTHER_ID,
          meta: { name: 'chain', created: expect.stringMatching(ISO), updated: expect.stringMatching(ISO) },
          state: 'running',
        },
      ],
    });
  });

  it('reads {success, stream: {id, meta, nodes, pipes, status}} with upper-case status everywhere', async () => {
    const sent = referenceStream();
    ok(await json(cp, 'POST', base, sent));
    const body = ok(await json(cp, 'GET', `${base}/${STREAM_ID}`));
    expect(body).toEqual({
      success: true,
      stream: {
        id: STREAM_ID,
        meta: { ...sent.meta, created: expect.stringMatching(ISO), updated: expect.stringMatching(ISO) },
        nodes: sent.nodes.map((n) => ({ ...n, status: 'CREATED' })),
        pipes: sent.pipes,
        status: 'CREATED',
      },
    });

    ok(await signal(cp, STREAM_ID, 'start', prefix));
    await cp.manager.settle();
    const running = await readStream(cp, STREAM_ID);
    expect(running.status).toBe('RUNNING');
    expect(running.nodes.map((n) => n.status)).toEqual(['RUNNING', 'RUNNING']);

    ok(await signal(cp, STREAM_ID, 'stop', prefix));
    await cp.manager.settle();
    const stopped = await readStream(cp, STREAM_ID);
    expect(stopped.status).toBe('STOPPED');
    expect(stopped.nodes.map((n) => n.status)).toEqual(['TERMINATED', 'TERMINATED']);
  });

  it('answers the definition as YAML on GET .../yaml and on Accept: text/yaml', async () => {
    ok(await json(cp, 'POST', base, referenceStream()));
    const exported = await call(cp, { method: 'GET', url: `${base}/${STREAM_ID}/yaml` });
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toMatch(/^text\/yaml/);
    const parsed = parseYamlText(exported.body) as Record<string, unknown>;
    const { meta, ...rest } = parsed as { meta: Record<string, unknown> };
    const sent = referenceStream();
    expect(rest).toEqual({ id: STREAM_ID, nodes: sent.nodes, pipes: sent.pipes });
    expect(meta).toEqual({
      ...sent.meta,
      created: expect.stringMatching(ISO),
      updated: expect.stringMatching(ISO),
    });

    for (const accept of ['text/yaml', 'application/yaml', 'application/x-yaml']) {
      const read = await call(cp, { method: 'GET', url: `${base}/${STREAM_ID}`, headers: { accept } });
      expect(read.statusCode).toBe(200);
      expect(read.headers['content-type']).toMatch(/^text\/yaml/);
      expect(parseYamlText(read.body)).toEqual(parsed);
    }
    // A JSON Accept keeps JSON.
    const asJson = await call(cp, {
      method: 'GET',
      url: `${base}/${STREAM_ID}`,
      headers: { accept: 'application/json' },
    });
    expect(asJson.headers['content-type']).toMatch(/^application\/json/);
  });

  it('round-trips: an exported YAML is accepted as a create document under another id', async () => {
    ok(await json(cp, 'POST', base, referenceStream()));
    const exported = (await call(cp, { method: 'GET', url: `${base}/${STREAM_ID}/yaml` })).body;
    const again = exported.replace(`id: ${STREAM_ID}`, `id: ${OTHER_ID}`);
    expect(ok(await text(cp, 'POST', `${base}/yaml`, again))).toEqual({ id: OTHER_ID, success: true });
  });

  it('sets meta.created and meta.updated itself and ignores values sent', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-02T03:04:05.678Z'));
    const sent = referenceStream();
    const withMeta = {
      ...sent,
      meta: { ...sent.meta, created: '1999-01-01T00:00:00.000Z', updated: '1999-01-01T00:00:00.000Z' },
    };
    ok(await json(cp, 'POST', base, withMeta));
    let stream = await readStream(cp, STREAM_ID);
    expect(stream.meta.created).toBe('2030-01-02T03:04:05.678Z');
    expect(stream.meta.updated).toBe('2030-01-02T03:04:05.678Z');

    vi.setSystemTime(new Date('2030-01-02T03:05:00.000Z'));
    const { id: _id, ...replacement } = withMeta;
    ok(await json(cp, 'PUT', `${base}/${STREAM_ID}`, replacement));
    stream = await readStream(cp, STREAM_ID);
    expect(stream.meta.created).toBe('2030-01-02T03:04:05.678Z');
    expect(stream.meta.updated).toBe('2030-01-02T03:05:00.000Z');

    vi.setSystemTime(new Date('2030-01-02T03:06:00.000Z'));
    ok(await json(cp, 'DELETE', `${base}/${STREAM_ID}/pipes`, [sent.pipes[0]!.id]));
    stream = await readStream(cp, STREAM_ID);
    expect(stream.meta.created).toBe('2030-01-02T03:04:05.678Z');
    expect(stream.meta.updated).toBe('2030-01-02T03:06:00.000Z');
  });

  it('ignores meta.created and meta.updated sent with any type, on create and on PUT', async () => {
    const sent = referenceStream();
    const odd = { ...sent, meta: { ...sent.meta, created: 1_700_000_000_000, updated: { at: 'noon' } } };
    ok(await json(cp, 'POST', base, odd));
    const stream = await readStream(cp, STREAM_ID);
    expect(stream.meta.created).toMatch(ISO);
    expect(stream.meta.updated).toMatch(ISO);
    const { id: _id, ...replacement } = { ...odd, meta: { name: 'x', created: null, updated: [] } };
    ok(await json(cp, 'PUT', `${base}/${STREAM_ID}`, replacement));
    expect((await readStream(cp, STREAM_ID)).meta).toEqual({
      name: 'x',
      created: stream.meta.created,
      updated: expect.stringMatching(ISO),
    });
  });

  it('PUT replaces the whole definition and answers {id, success}', async () => {
    ok(await json(cp, 'POST', base, referenceStream()));
    const chain = chainStream(STREAM_ID);
    const { id: _id, ...withoutId } = { ...chain, meta: { name: 'replaced' } };
    expect(ok(await json(cp, 'PUT', `${base}/${STREAM_ID}`, withoutId))).toEqual({
      id: STREAM_ID,
      success: true,
    });
    const stream = await readStream(cp, STREAM_ID);
    // Replace, not merge: the old tags and nodes are gone.
    expect(stream.meta).toEqual({
      name: 'replaced',
      created: expect.stringMatching(ISO),
      updated: expect.stringMatching(ISO),
    });
    expect(stream.nodes.map((n) => n.id)).toEqual(['gen', 'filt', 'log']);
    expect(stream.pipes).toEqual(chain.pipes);
    // Not running: the runtime is not involved.
    expect(cp.runtime.ops(STREAM_ID)).toEqual([]);
  });

  it('PUT accepts the same id in the body (any case) and YAML; refuses another id', async () => {
    ok(await json(cp, 'POST', base, referenceStream()));
    const same = { ...chainStream(STREAM_ID.toUpperCase()) };
    expect(ok(await json(cp, 'PUT', `${base}/${STREAM_ID}`, same))).toEqual({ id: STREAM_ID, success: true });
    ok(await text(cp, 'PUT', `${base}/${STREAM_ID}`, REFERENCE_YAML));
    expect((await readStream(cp, STREAM_ID)).nodes.map((n) => n.id)).toEqual(['gen', 'ws']);

    const other = expectError(
      await json(cp, 'PUT', `${base}/${STREAM_ID}`, chainStream(OTHER_ID)),
      422,
      'validation_failed',
    );
    expect(other.error.details?.path).toBe('/id');
    expect(other.error.message).toContain(OTHER_ID);
    expect((await readStream(cp, STREAM_ID)).nodes.map((n) => n.id)).toEqual(['gen', 'ws']);
  });

  it('PUT accepts a stream read sent back as it was answered (status fields ignored)', async () => {
    ok(await json(cp, 'POST', base, referenceStream()));
    const read = await readStream(cp, STREAM_ID);
    ok(await json(cp, 'PUT', `${base}/${STREAM_ID}`, read));
    const again = await readStream(cp, STREAM_ID);
    expect(again.nodes).toEqual(read.nodes);
    expect(again.pipes).toEqual(read.pipes);
  });

  it('PUT on a running stream applies the new definition live through runtime.update', async () => {
    ok(await json(cp, 'POST', base, chainStream(STREAM_ID)));
    ok(await signal(cp, STREAM_ID, 'start', prefix));
    await cp.manager.settle();
    const next = chainStream(STREAM_ID);
    next.nodes[1]!.config = { lowpass: 30 };
    ok(await json(cp, 'PUT', `${base}/${STREAM_ID}`, next));
    expect(cp.runtime.ops(STREAM_ID)).toEqual(['start', 'update']);
    const update = cp.runtime.calls.at(-1)!.detail as { nodes: { config: unknown }[] };
    expect(update.nodes[1]!.config).toEqual({ lowpass: 30 });
    expect(await readStream(cp, STREAM_ID)).toMatchObject({ status: 'RUNNING' });
  });

  it('PUT rolls back the definition when the live update fails', async () => {
    ok(await json(cp, 'POST', base, chainStream(STREAM_ID)));
    ok(await signal(cp, STREAM_ID, 'start', prefix));
    await cp.manager.settle();
    const before = await readStream(cp, STREAM_ID);
    cp.runtime.failUpdate = 'the filter cannot be redesigned live';
    const next = chainStream(STREAM_ID);
    next.nodes[1]!.config = { lowpass: 30 };
    const error = expectError(await json(cp, 'PUT', `${base}/${STREAM_ID}`, next), 422, 'validation_failed');
    expect(error.error.message).toContain('cannot be redesigned live');
    await cp.manager.settle();
    expect(await readStream(cp, STREAM_ID)).toEqual(before);
    // The new definition was tried, then the previous one restored in the runtime.
    const updates = cp.runtime.calls.filter((c) => c.op === 'update');
    expect(updates.map((c) => (c.detail as { nodes: { config: unknown }[] }).nodes[1]!.config)).toEqual([
      { lowpass: 30 },
      { lowpass: 40 },
    ]);
    // The store was rolled back too.
    const stored = cp.manager.get(STREAM_ID).definition;
    expect(stored.nodes[1]!.config).toEqual({ lowpass: 40 });
  });

  it('DELETE answers exactly {success}, forgets the stream, and a running one is stopped first', async () => {
    ok(await json(cp, 'POST', base, referenceStream()));
    ok(await json(cp, 'POST', base, chainStream(OTHER_ID)));
    ok(await signal(cp, OTHER_ID, 'start', prefix));
    await cp.manager.settle();

    expect(ok(await json(cp, 'DELETE', `${base}/${STREAM_ID}`))).toEqual({ success: true });
    expect(cp.runtime.ops(STREAM_ID)).toEqual([]);
    expectError(await json(cp, 'GET', `${base}/${STREAM_ID}`), 404, 'stream_not_found');

    expect(ok(await json(cp, 'DELETE', `${base}/${OTHER_ID}`))).toEqual({ success: true });
    expect(cp.runtime.ops(OTHER_ID)).toEqual(['start', 'stop']);
    expect(cp.runtime.running.has(OTHER_ID)).toBe(false);
    expect(ok(await json(cp, 'GET', base))).toEqual({ success: true, streams: [] });
    expectError(await json(cp, 'DELETE', `${base}/${OTHER_ID}`), 404, 'stream_not_found');
  });

  it('DELETE of a running stream whose runtime fails to stop still succeeds (regression: it answered 500)', async () => {
    ok(await json(cp, 'POST', base, chainStream(OTHER_ID)));
    ok(await signal(cp, OTHER_ID, 'start', prefix));
    await cp.manager.settle();
    cp.runtime.failStop = 'the worker did not answer';
    expect(ok(await json(cp, 'DELETE', `${base}/${OTHER_ID}`))).toEqual({ success: true });
    expectError(await json(cp, 'GET', `${base}/${OTHER_ID}`), 404, 'stream_not_found');
    cp.runtime.failStop = undefined;
  });

  it('PUT on a paused stream updates it live and it stays paused', async () => {
    ok(await json(cp, 'POST', base, chainStream(STREAM_ID)));
    ok(await signal(cp, STREAM_ID, 'start', prefix));
    await cp.manager.settle();
    ok(await signal(cp, STREAM_ID, 'pause', prefix));
    await cp.manager.settle();
    const next = chainStream(STREAM_ID);
    next.nodes[1]!.config = { highpass: 1 };
    ok(await json(cp, 'PUT', `${base}/${STREAM_ID}`, next));
    expect(cp.runtime.ops(STREAM_ID)).toEqual(['start', 'pause', 'update']);
    expect((await readStream(cp, STREAM_ID)).status).toBe('PAUSED');
    expect(cp.runtime.running.get(STREAM_ID)!.definition.nodes[1]!.config).toEqual({ highpass: 1 });
  });

  it('DELETE stops a paused stream, and one still starting once its start ends', async () => {
    ok(await json(cp, 'POST', base, chainStream(STREAM_ID)));
    ok(await json(cp, 'POST', base, chainStream(OTHER_ID)));
    ok(await signal(cp, STREAM_ID, 'start', prefix));
    await cp.manager.settle();
    ok(await signal(cp, STREAM_ID, 'pause', prefix));
    await cp.manager.settle();
    expect(ok(await json(cp, 'DELETE', `${base}/${STREAM_ID}`))).toEqual({ success: true });
    expect(cp.runtime.ops(STREAM_ID)).toEqual(['start', 'pause', 'stop']);

    const release = cp.runtime.hold('start');
    ok(await signal(cp, OTHER_ID, 'start', prefix));
    const deleting = json(cp, 'DELETE', `${base}/${OTHER_ID}`);
    // Gone from the API at once, stopped in the runtime once the start it waits for has ended.
    expectError(await json(cp, 'GET', `${base}/${OTHER_ID}`), 404, 'stream_not_found');
    release();
    expect(ok(await deleting)).toEqual({ success: true });
    expect(cp.runtime.ops(OTHER_ID)).toEqual(['start', 'stop']);
    expect(cp.runtime.running.size).toBe(0);
  });

  it('404 stream_not_found on every per-stream route for an unknown id', async () => {
    const unknown = `${base}/${OTHER_ID}`;
    const cases: [string, string, unknown][] = [
      ['GET', unknown, undefined],
      ['GET', `${unknown}/yaml`, undefined],
      ['PUT', unknown, chainStream(OTHER_ID)],
      ['DELETE', unknown, undefined],
      ['GET', `${unknown}/status`, undefined],
      ['POST', `${unknown}/signal`, { signal: 'start' }],
      ['POST', `${unknown}/nodes`, [{ id: 'x', executable: 'logger' }]],
      ['DELETE', `${unknown}/nodes`, ['x']],
      ['POST', `${unknown}/nodes/x/signal`, { signal: 'start' }],
      ['GET', `${unknown}/nodes/x/logs`, undefined],
      ['POST', `${unknown}/pipes`, [{ id: 'p', source: 'a', destination: 'b' }]],
      ['DELETE', `${unknown}/pipes`, ['p']],
    ];
    for (const [method, url, body] of cases) {
      const error = expectError(await json(cp, method as 'GET', url, body), 404, 'stream_not_found');
      expect(error.error.message).toContain(OTHER_ID);
    }
    for (const url of [`${unknown}/nodes/yaml`, `${unknown}/pipes/yaml`]) {
      expectError(await text(cp, 'POST', url, '- {id: x, executable: logger}\n'), 404, 'stream_not_found');
    }
    // A malformed id is simply not found.
    expectError(await json(cp, 'GET', `${base}/not-a-uuid`), 404, 'stream_not_found');
  });
});
