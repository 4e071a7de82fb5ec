/**
 * Live editing of a stream (docs/api.md §Paths and shapes): add and remove nodes and pipes (JSON and YAML),
 * node signals and logs. Each edit is validated as a whole and applied atomically, with error
 * pointers relative to the request body.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ControlPlane, controlPlane } from '../support/control-plane.js';
import { eventually } from '../support/wait.js';
import {
  chainStream,
  expectError,
  form,
  json,
  ok,
  OTHER_ID,
  PREFIXES,
  readStream,
  signal,
  text,
} from './helpers.js';

const ID = OTHER_ID;
let cp: ControlPlane;
beforeEach(async () => {
  cp = await controlPlane();
  ok(await json(cp, 'POST', '/stream/streams', chainStream(ID)));
});
afterEach(async () => {
  await cp.close();
});

async function start(): Promise<void> {
  ok(await signal(cp, ID, 'start'));
  await cp.manager.settle();
}

describe.each(PREFIXES)('nodes and pipes under "%s/streams"', (prefix) => {
  const url = `${prefix}/streams/${ID}`;

  it('adds nodes from JSON: {id, success, nodes: [added ids]}', async () => {
    const body = ok(
      await json(cp, 'POST', `${url}/nodes`, [
        { id: 'log2', executable: 'logger' },
        { id: 'ws', executable: 'websocket', config: { port: 0 }, meta: { type: 'OUTPUT', note: 'kept' } },
      ]),
    );
    expect(body).toEqual({ id: ID, success: true, nodes: ['log2', 'ws'] });
    const stream = await readStream(cp, ID);
    expect(stream.nodes.map((n) => n.id)).toEqual(['gen', 'filt', 'log', 'log2', 'ws']);
    expect(stream.nodes[4]).toEqual({
      id: 'ws',
      executable: 'websocket',
      config: { port: 0 },
      meta: { type: 'OUTPUT', note: 'kept' },
      status: 'CREATED',
    });
  });

  it('adds nodes from a YAML list on .../nodes/yaml and on .../nodes', async () => {
    const yamlList =
      '- id: log2\n  executable: logger\n- {id: f2, executable: filter, config: {highpass: 1}}\n';
    expect(ok(await text(cp, 'POST', `${url}/nodes/yaml`, yamlList))).toEqual({
      id: ID,
      success: true,
      nodes: ['log2', 'f2'],
    });
    expect(
      ok(await text(cp, 'POST', `${url}/nodes`, '- {id: log3, executable: logger}\n', 'application/yaml')),
    ).toEqual({ id: ID, success: true, nodes: ['log3'] });
    expect((await readStream(cp, ID)).nodes.map((n) => n.id)).toEqual([
      'gen',
      'filt',
      'log',
      'log2',
      'f2',
      'log3',
    ]);
  });

  it('removes nodes and every pipe touching them: {id, success, nodes, pipes}', async () => {
    const body = ok(await json(cp, 'DELETE', `${url}/nodes`, ['filt']));
    expect(body).toEqual({ id: ID, success: true, nodes: ['filt'], pipes: ['p1', 'p2'] });
    const stream = await readStream(cp, ID);
    expect(stream.nodes.map((n) => n.id)).toEqual(['gen', 'log']);
    expect(stream.pipes).toEqual([]);
    expect(ok(await text(cp, 'DELETE', `${url}/nodes`, '- log\n'))).toEqual({
      id: ID,
      success: true,
      nodes: ['log'],
      pipes: [],
    });
  });

  it('adds pipes from JSON and YAML: {id, pipes: [added ids], success}; target is answered as destination', async () => {
    ok(await json(cp, 'POST', `${url}/nodes`, [{ id: 'log2', executable: 'logger' }]));
    expect(
      ok(await json(cp, 'POST', `${url}/pipes`, [{ id: 'p3', source: 'filt', target: 'log2', capacity: 8 }])),
    ).toEqual({ id: ID, pipes: ['p3'], success: true });
    ok(await json(cp, 'POST', `${url}/nodes`, [{ id: 'log3', executable: 'logger' }]));
    expect(
      ok(await text(cp, 'POST', `${url}/pipes/yaml`, '- {id: p4, source: gen, destination: log3}\n')),
    ).toEqual({ id: ID, pipes: ['p4'], success: true });
    const stream = await readStream(cp, ID);
    expect(stream.pipes.slice(2)).toEqual([
      { id: 'p3', source: 'filt', destination: 'log2', capacity: 8 },
      { id: 'p4', source: 'gen', destination: 'log3' },
    ]);
  });

  it('removes pipes: {id, pipes: [removed ids], success}', async () => {
    expect(ok(await json(cp, 'DELETE', `${url}/pipes`, ['p2', 'p1']))).toEqual({
      id: ID,
      pipes: ['p2', 'p1'],
      success: true,
    });
    expect((await readStream(cp, ID)).pipes).toEqual([]);
  });

  it('removes pipes from a YAML list', async () => {
    expect(ok(await text(cp, 'DELETE', `${url}/pipes`, '- p1\n'))).toEqual({
      id: ID,
      pipes: ['p1'],
      success: true,
    });
    expect((await readStream(cp, ID)).pipes.map((p) => p.id)).toEqual(['p2']);
  });

  it('edits of a running stream are applied live through runtime.update', async () => {
    await start();
    ok(await json(cp, 'POST', `${url}/nodes`, [{ id: 'log2', executable: 'logger' }]));
    ok(await json(cp, 'POST', `${url}/pipes`, [{ id: 'p3', source: 'filt', destination: 'log2' }]));
    ok(await json(cp, 'DELETE', `${url}/pipes`, ['p3']));
    ok(await json(cp, 'DELETE', `${url}/nodes`, ['log2']));
    expect(cp.runtime.ops(ID)).toEqual(['start', 'update', 'update', 'update', 'update']);
    const last = cp.runtime.calls.at(-1)!.detail as { nodes: { id: string }[]; pipes: { id: string }[] };
    expect(last.nodes.map((n) => n.id)).toEqual(['gen', 'filt', 'log']);
    expect(last.pipes.map((p) => p.id)).toEqual(['p1', 'p2']);
    expect(cp.runtime.running.get(ID)!.definition.nodes.map((n) => n.id)).toEqual(['gen', 'filt', 'log']);
  });

  it('an edit whose live update fails changes nothing', async () => {
    await start();
    const before = await readStream(cp, ID);
    cp.runtime.failUpdate = 'no room for another node';
    expectError(
      await json(cp, 'POST', `${url}/nodes`, [{ id: 'log2', executable: 'logger' }]),
      422,
      'validation_failed',
    );
    expectError(await json(cp, 'DELETE', `${url}/pipes`, ['p2']), 422, 'validation_failed');
    await cp.manager.settle();
    expect(await readStream(cp, ID)).toEqual(before);
  });

  it('two edits during one live update: each is applied or refused whole, never stored after a refusal', async () => {
    await start();
    const release = cp.runtime.hold('update');
    const first = json(cp, 'POST', `${url}/nodes`, [{ id: 'A', executable: 'logger' }]);
    // Both requests are in: the first waits on its live update, the second on the first (queued
    // behind it: the stream's queue of edits has moved on).
    await eventually(() => cp.runtime.ops(ID).includes('update'), 10_000, 'the live update');
    const firstQueued = cp.manager.get(ID).edits;
    const second = json(cp, 'POST', `${url}/nodes`, [{ id: 'B', executable: 'logger' }]);
    await eventually(() => cp.manager.get(ID).edits !== firstQueued, 10_000, 'the second edit queued');
    cp.runtime.failUpdate = 'the runtime refuses';
    release();
    const answers = await Promise.all([first, second]);
    expect(answers.map((r) => r.statusCode)).toEqual([422, 422]);
    await cp.manager.settle();
    // Refused means not stored: the definition read back and the runtime's are the original one.
    expect((await readStream(cp, ID)).nodes.map((n) => n.id)).toEqual(['gen', 'filt', 'log']);
    expect(cp.runtime.running.get(ID)!.definition.nodes.map((n) => n.id)).toEqual(['gen', 'filt', 'log']);
    expect(cp.manager.get(ID).definition.nodes.map((n) => n.id)).toEqual(['gen', 'filt', 'log']);

    // The same two edits, the first succeeding: the second builds on it.
    cp.runtime.failUpdate = undefined;
    const hold = cp.runtime.hold('update');
    const updates = cp.runtime.ops(ID).filter((op) => op === 'update').length;
    const third = json(cp, 'POST', `${url}/nodes`, [{ id: 'A', executable: 'logger' }]);
    await eventually(
      () => cp.runtime.ops(ID).filter((op) => op === 'update').length === updates + 1,
      10_000,
      'the live update of the third edit',
    );
    const thirdQueued = cp.manager.get(ID).edits;
    const fourth = json(cp, 'POST', `${url}/pipes`, [{ id: 'pA', source: 'filt', destination: 'A' }]);
    await eventually(() => cp.manager.get(ID).edits !== thirdQueued, 10_000, 'the fourth edit queued');
    hold();
    expect((await Promise.all([third, fourth])).map((r) => r.statusCode)).toEqual([200, 200]);
    expect((await readStream(cp, ID)).pipes.map((p) => p.id)).toEqual(['p1', 'p2', 'pA']);
  });

  it('node_exists and pipe_exists (409) point into the body', async () => {
    const node = expectError(
      await json(cp, 'POST', `${url}/nodes`, [
        { id: 'new', executable: 'logger' },
        { id: 'filt', executable: 'logger' },
      ]),
      409,
      'node_exists',
    );
    expect(node.error.details).toEqual({ path: '/1/id' });
    const pipe = expectError(
      await json(cp, 'POST', `${url}/pipes`, [{ id: 'p2', source: 'gen', destination: 'log' }]),
      409,
      'pipe_exists',
    );
    expect(pipe.error.details).toEqual({ path: '/0/id' });
  });

  it('refuses repeated ids in one body, empty lists and non-lists', async () => {
    const twice = expectError(
      await json(cp, 'POST', `${url}/nodes`, [
        { id: 'n', executable: 'logger' },
        { id: 'n', executable: 'logger' },
      ]),
      422,
      'validation_failed',
    );
    expect(twice.error.details).toEqual({ path: '/1' });
    expect(
      expectError(await json(cp, 'DELETE', `${url}/pipes`, ['p1', 'p1']), 422, 'validation_failed').error
        .details,
    ).toEqual({ path: '/1' });
    for (const route of ['nodes', 'pipes']) {
      expectError(await json(cp, 'POST', `${url}/${route}`, []), 422, 'validation_failed');
      expectError(await json(cp, 'DELETE', `${url}/${route}`, []), 422, 'validation_failed');
      const notList = expectError(
        await json(cp, 'POST', `${url}/${route}`, { id: 'x' }),
        400,
        'invalid_request',
      );
      expect(notList.error.details).toEqual({ path: '' });
      expectError(await json(cp, 'DELETE', `${url}/${route}`, 'x'), 400, 'invalid_request');
      expectError(await json(cp, 'DELETE', `${url}/${route}`), 400, 'invalid_request');
      const badItem = expectError(
        await json(cp, 'DELETE', `${url}/${route}`, ['p1', 7]),
        400,
        'invalid_request',
      );
      expect(badItem.error.details?.path).toBe('/1');
    }
  });

  it('a YAML mapping where a list is expected is refused with a message naming YAML, not only JSON', async () => {
    const error = expectError(
      await text(cp, 'POST', `${url}/nodes/yaml`, 'id: log2\nexecutable: logger\n'),
      400,
      'invalid_request',
    );
    expect(error.error.message).toContain('YAML sequence');
    expect(error.error.details).toEqual({ path: '' });
  });

  it('404 node_not_found / pipe_not_found on removal of unknown ids, and nothing is removed', async () => {
    const node = expectError(
      await json(cp, 'DELETE', `${url}/nodes`, ['log', 'ghost']),
      404,
      'node_not_found',
    );
    expect(node.error.details).toEqual({ path: '/1' });
    expect(node.error.message).toContain('ghost');
    const pipe = expectError(
      await json(cp, 'DELETE', `${url}/pipes`, ['p1', 'ghost']),
      404,
      'pipe_not_found',
    );
    expect(pipe.error.details).toEqual({ path: '/1' });
    const stream = await readStream(cp, ID);
    expect(stream.nodes.map((n) => n.id)).toEqual(['gen', 'filt', 'log']);
    expect(stream.pipes.map((p) => p.id)).toEqual(['p1', 'p2']);
  });

  it('atomicity: a list with one bad item changes nothing, with pointers relative to the body', async () => {
    const before = await readStream(cp, ID);
    const cases: [string, string, unknown, number, string, string][] = [
      [
        'POST',
        'nodes',
        [
          { id: 'ok1', executable: 'logger' },
          {
            id: 'bad',
            executable: 'signal-generator',
            config: { sampleRate: 0, amplitudes: [1], frequencies: [1] },
          },
        ],
        422,
        'validation_failed',
        '/1/config/sampleRate',
      ],
      [
        'POST',
        'nodes',
        [
          { id: 'ok1', executable: 'logger' },
          { id: 'bad', executable: 'logger', extra: true },
        ],
        400,
        'invalid_request',
        '/1/extra',
      ],
      [
        'POST',
        'nodes',
        [
          { id: 'ok1', executable: 'logger' },
          { id: 'bad', executable: 'no-such-program' },
        ],
        422,
        'unknown_executable',
        '/1/executable',
      ],
      [
        'POST',
        'pipes',
        [
          { id: 'ok', source: 'gen', destination: 'log' },
          { id: 'bad', source: 'gen', destination: 'ghost' },
        ],
        422,
        'validation_failed',
        '/1/destination',
      ],
      ['POST', 'pipes', [{ id: 'bad', source: 'gen' }], 400, 'invalid_request', '/0/destination'],
      [
        'POST',
        'pipes',
        [
          { id: 'ok', source: 'gen', destination: 'log' },
          { id: 'bad', source: 'filt', destination: 'gen' },
        ],
        422,
        'validation_failed',
        '/1/destination',
      ],
      [
        'POST',
        'pipes',
        [
          { id: 'ok', source: 'gen', destination: 'log' },
          { id: 'bad', source: 'filt', destination: 'filt' },
        ],
        422,
        'validation_failed',
        '/1',
      ],
      [
        'POST',
        'pipes',
        [
          { id: 'ok', source: 'gen', destination: 'log' },
          { id: 'dup', source: 'gen', destination: 'filt' },
        ],
        422,
        'validation_failed',
        '/1',
      ],
      [
        'POST',
        'pipes',
        [
          { id: 'ok', source: 'gen', destination: 'log' },
          { id: 'bad', source: 'gen', destination: 'log', sourcePort: 'nope' },
        ],
        422,
        'validation_failed',
        '/1/sourcePort',
      ],
    ];
    for (const [method, route, body, status, code, path] of cases) {
      const error = expectError(
        await json(cp, method as 'POST', `${url}/${route}`, body),
        status,
        code as 'validation_failed',
      );
      expect(error.error.details?.path, JSON.stringify(body)).toBe(path);
      expect(error.error.message).not.toMatch(/\/(nodes|pipes)\/\d/);
      expect(await readStream(cp, ID)).toEqual(before);
    }
  });

  it('a pipe closing a cycle is refused, naming the cycle in order and pointing at the new pipe', async () => {
    // gen → filt → log: make filt2 ↔ filt a cycle through a new pipe pair.
    ok(
      await json(cp, 'POST', `${url}/nodes`, [
        { id: 'filt2', executable: 'filter', config: { lowpass: 10 } },
      ]),
    );
    ok(await json(cp, 'POST', `${url}/pipes`, [{ id: 'p3', source: 'filt', destination: 'filt2' }]));
    const before = await readStream(cp, ID);
    const error = expectError(
      await json(cp, 'POST', `${url}/pipes`, [
        { id: 'fine', source: 'gen', destination: 'log' },
        { id: 'back', source: 'filt2', destination: 'filt' },
      ]),
      422,
      'validation_failed',
    );
    expect(error.error.message).toMatch(/cycle: (filt → filt2 → filt|filt2 → filt → filt2)/);
    expect(error.error.details?.path).toBe('/1');
    expect(await readStream(cp, ID)).toEqual(before);
  });
});

describe.each(PREFIXES)('node signals and logs under "%s/streams"', (prefix) => {
  const url = `${prefix}/streams/${ID}`;

  it('forwards a custom signal with its payload: {id: nodeId, streamId, signal, success}', async () => {
    await start();
    expect(
      ok(await json(cp, 'POST', `${url}/nodes/filt/signal`, { signal: 'marker', text: 'eyes closed' })),
    ).toEqual({
      id: 'filt',
      streamId: ID,
      signal: 'marker',
      success: true,
    });
    expect(
      ok(await form(cp, 'POST', `${url}/nodes/log/signal`, { signal: 'marker', text: 'blink' })),
    ).toEqual({
      id: 'log',
      streamId: ID,
      signal: 'marker',
      success: true,
    });
    ok(await form(cp, 'POST', `${url}/nodes/gen/signal`, { signal: 'restart' }));
    const calls = cp.runtime.calls.filter((c) => c.op === 'signalNode').map((c) => c.detail);
    expect(calls).toEqual([
      { nodeId: 'filt', signal: 'marker', payload: { text: 'eyes closed' } },
      { nodeId: 'log', signal: 'marker', payload: { text: 'blink' } },
      { nodeId: 'gen', signal: 'restart', payload: {} },
    ]);
  });

  it('node signals work on a paused stream and are refused (409) when it is not running', async () => {
    const refused = expectError(
      await form(cp, 'POST', `${url}/nodes/gen/signal`, { signal: 'start' }),
      409,
      'invalid_state',
    );
    expect(refused.error.details).toMatchObject({ state: 'created', signal: 'start' });
    await start();
    ok(await signal(cp, ID, 'pause', prefix));
    await cp.manager.settle();
    ok(await form(cp, 'POST', `${url}/nodes/gen/signal`, { signal: 'marker' }));
    ok(await signal(cp, ID, 'stop', prefix));
    await cp.manager.settle();
    const stopped = expectError(
      await form(cp, 'POST', `${url}/nodes/gen/signal`, { signal: 'marker' }),
      409,
      'invalid_state',
    );
    expect(stopped.error.details).toMatchObject({ state: 'stopped', signal: 'marker' });
  });

  it('node signal errors: unknown node 404, bad or missing signal 400', async () => {
    await start();
    const unknown = expectError(
      await form(cp, 'POST', `${url}/nodes/ghost/signal`, { signal: 'start' }),
      404,
      'node_not_found',
    );
    expect(unknown.error.message).toContain('ghost');
    expectError(
      await form(cp, 'POST', `${url}/nodes/gen/signal`, { signal: 'no spaces' }),
      400,
      'invalid_request',
    );
    expectError(await form(cp, 'POST', `${url}/nodes/gen/signal`, { text: 'x' }), 400, 'invalid_request');
    expectError(await json(cp, 'POST', `${url}/nodes/gen/signal`, ['marker']), 400, 'invalid_request');
    expect(cp.runtime.calls.filter((c) => c.op === 'signalNode')).toEqual([]);
  });

  it('logs: {success, logs: [{timestamp, stream, line}]}; unknown node 404', async () => {
    expect(ok(await json(cp, 'GET', `${url}/nodes/filt/logs`))).toEqual({
      success: true,
      logs: [{ timestamp: 1, stream: 'event', line: `${ID}/filt started` }],
    });
    expectError(await json(cp, 'GET', `${url}/nodes/ghost/logs`), 404, 'node_not_found');
  });
});
