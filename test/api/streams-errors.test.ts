/**
 * Every error path of the Streams API (docs/api.md §Requests, §Errors, §Validation): bodies, media types, sizes, routes and methods, and each defect of a stream
 * document. Every answer goes through `call`, which fails on a 500 or a body that is not the envelope.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ControlPlane, controlPlane, referenceStream, STREAM_ID } from '../support/control-plane.js';
import { call, chainStream, expectError, json, ok, OTHER_ID, PREFIXES, text } from './helpers.js';

let cp: ControlPlane;
beforeEach(async () => {
  cp = await controlPlane();
});
afterEach(async () => {
  await cp.close();
});

/** The reference stream with `change` applied to a deep copy. */
function variant(change: (doc: Record<string, any>) => void): Record<string, unknown> {
  const doc = structuredClone(referenceStream()) as Record<string, any>;
  change(doc);
  return doc;
}

async function expectNoStreams(): Promise<void> {
  expect(ok(await json(cp, 'GET', '/stream/streams'))).toEqual({ success: true, streams: [] });
}

describe.each(PREFIXES)('bodies under "%s/streams"', (prefix) => {
  const base = `${prefix}/streams`;

  it('malformed JSON: 400 with the parser message', async () => {
    const error = expectError(
      await text(cp, 'POST', base, '{"id": ', 'application/json'),
      400,
      'invalid_request',
    );
    expect(error.error.message).toMatch(/^The JSON body is malformed: .+/);
    expect(error.error.message).toMatch(/JSON/);
  });

  it('malformed YAML: 400 with line and column in details', async () => {
    const body = `id: ${STREAM_ID}\nnodes:\n  - id: a\n   executable: logger\n`;
    const error = expectError(await text(cp, 'POST', base, body), 400, 'invalid_request');
    expect(error.error.details).toMatchObject({ line: expect.any(Number), column: expect.any(Number) });
    expect(error.error.details?.line).toBe(4);
    expect(error.error.message).toContain('line 4');
    const unclosed = expectError(
      await text(cp, 'POST', `${base}/yaml`, 'id: [1, 2\n'),
      400,
      'invalid_request',
    );
    expect(unclosed.error.details).toMatchObject({ line: expect.any(Number), column: expect.any(Number) });
  });

  it('duplicate YAML keys and several documents are refused with 400 and a position', async () => {
    const dup = expectError(
      await text(cp, 'POST', base, `id: ${STREAM_ID}\nid: ${OTHER_ID}\n`),
      400,
      'invalid_request',
    );
    expect(dup.error.details).toEqual({ line: 2, column: 1 });
    const two = `id: ${STREAM_ID}\n---\nid: ${OTHER_ID}\n`;
    const multi = expectError(await text(cp, 'POST', `${base}/yaml`, two), 400, 'invalid_request');
    expect(multi.error.details).toMatchObject({ line: expect.any(Number), column: expect.any(Number) });
    expect(multi.error.message).toMatch(/document/i);
    await expectNoStreams();
  });

  it('a YAML alias bomb is refused with 400, quickly', async () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [prev, name] of [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'd'],
      ['d', 'e'],
      ['e', 'f'],
      ['f', 'g'],
      ['g', 'h'],
    ]) {
      lines.push(`${name}: &${name} [${Array(9).fill(`*${prev!}`).join(',')}]`);
    }
    const error = expectError(
      await text(cp, 'POST', `${base}/yaml`, `${lines.join('\n')}\n`),
      400,
      'invalid_request',
    );
    expect(error.error.message).toMatch(/alias/i);
  });

  it('a few YAML aliases in a normal document are fine', async () => {
    const body = `id: ${STREAM_ID}
nodes:
  - id: f1
    executable: filter
    config: &cfg {lowpass: 40}
  - id: f2
    executable: filter
    config: *cfg
`;
    ok(await text(cp, 'POST', base, body));
  });

  it('JSON and YAML that are not an object: 400', async () => {
    for (const [body, type] of [
      ['[]', 'application/json'],
      ['"text"', 'application/json'],
      ['null', 'application/json'],
      ['42', 'application/json'],
      ['- a\n- b\n', 'text/yaml'],
      ['just text\n', 'text/yaml'],
      ['', 'application/json'],
      ['', 'text/yaml'],
    ] as const) {
      const error = expectError(await text(cp, 'POST', base, body, type), 400, 'invalid_request');
      expect(error.error.details).toEqual({ path: '' });
    }
  });

  it('415 for a content type the route does not take, and for a body without one', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/xml',
      'multipart/form-data',
    ]) {
      const error = expectError(await text(cp, 'POST', base, 'id=x', type), 415, 'unsupported_media_type');
      expect(error.error.details).toMatchObject({
        accepted: expect.arrayContaining(['application/json', 'text/yaml']),
      });
    }
    const none = await call(cp, { method: 'POST', url: base, payload: Buffer.from('{}') });
    expectError(none, 415, 'unsupported_media_type');
    // A route that takes no body at all.
    expectError(
      await text(cp, 'DELETE', `${base}/${STREAM_ID}`, '{}', 'application/json'),
      415,
      'unsupported_media_type',
    );
  });

  it('413 for a body over 1 MiB, whatever its type', async () => {
    const big = `{"id":"${STREAM_ID}","meta":{"pad":"${'x'.repeat(1024 * 1024)}"}}`;
    const error = expectError(
      await text(cp, 'POST', base, big, 'application/json'),
      413,
      'payload_too_large',
    );
    expect(error.error.message).toContain('1 MiB');
    expectError(
      await text(cp, 'POST', `${base}/yaml`, `pad: ${'x'.repeat(1024 * 1024)}\n`),
      413,
      'payload_too_large',
    );
    // Just under the limit is fine.
    const under = `{"id":"${STREAM_ID}","meta":{"pad":"${'x'.repeat(1000 * 1000)}"}}`;
    ok(await text(cp, 'POST', base, under, 'application/json'));
  });

  it('deeply nested JSON or YAML is refused with 400, never a 500', async () => {
    for (const depth of [2000, 20_000, 200_000]) {
      const deep = `{"id":"${STREAM_ID}","meta":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
      expectError(await text(cp, 'POST', base, deep, 'application/json'), 400, 'invalid_request');
      const deepYaml = `id: ${STREAM_ID}\nmeta:\n  x: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
      expectError(await text(cp, 'POST', base, deepYaml), 400, 'invalid_request');
    }
    const refusedJson = expectError(
      await text(
        cp,
        'POST',
        base,
        `{"id":"${STREAM_ID}","meta":{"x":${'['.repeat(70)}${']'.repeat(70)}}}`,
        'application/json',
      ),
      400,
      'invalid_request',
    );
    expect(refusedJson.error.details?.path).toMatch(/^\/meta\/x(\/0)+$/);
    await expectNoStreams();
    // Ordinary nesting is fine.
    ok(await json(cp, 'POST', base, { ...referenceStream(), meta: { a: { b: [[{ c: [1] }]] } } }));
  });

  it('YAML tags beyond the core schema are refused (no custom tags)', async () => {
    for (const tagged of [
      '!foo bar',
      '!!binary aGVsbG8=',
      '!!set {a}',
      '!!timestamp 2001-12-14',
      '!!omap [a: 1]',
    ]) {
      const body = `id: ${STREAM_ID}\nmeta:\n  x: ${tagged}\n`;
      const error = expectError(await text(cp, 'POST', base, body), 400, 'invalid_request');
      expect(error.error.details).toMatchObject({ line: 3, column: expect.any(Number) });
    }
    await expectNoStreams();
    // The core schema's own tags are plain YAML 1.2.
    ok(await text(cp, 'POST', base, `id: !!str ${STREAM_ID}\nmeta:\n  version: !!int "3"\n`));
  });
});

describe('routes and methods', () => {
  it('404 not_found for unknown routes, with the envelope', async () => {
    for (const url of ['/nope', '/stream/nope', '/stream/streams/x/y/z', '/streams/x/nodes/y/z']) {
      const error = expectError(await json(cp, 'GET', url), 404, 'not_found');
      expect(error.error.message).toContain(url);
    }
  });

  it('405 with an Allow header listing the methods of the path', async () => {
    const cases: [string, string, string[]][] = [
      ['PATCH', `/stream/streams/${STREAM_ID}`, ['GET', 'PUT', 'DELETE']],
      ['PUT', '/stream/streams', ['POST', 'GET']],
      ['DELETE', '/streams', ['POST', 'GET']],
      ['GET', `/stream/streams/${STREAM_ID}/signal`, ['POST']],
      ['PUT', `/streams/${STREAM_ID}/nodes`, ['POST', 'DELETE']],
      ['GET', `/stream/streams/${STREAM_ID}/pipes`, ['POST', 'DELETE']],
      ['DELETE', `/stream/streams/${STREAM_ID}/pipes/yaml`, ['POST']],
      ['POST', `/stream/streams/${STREAM_ID}/status`, ['GET']],
      ['POST', `/stream/streams/${STREAM_ID}/yaml`, ['GET']],
      ['GET', `/stream/streams/${STREAM_ID}/nodes/n/signal`, ['POST']],
      ['DELETE', `/streams/${STREAM_ID}/nodes/n/logs`, ['GET']],
    ];
    for (const [method, url, allowed] of cases) {
      const response = await json(cp, method as 'GET', url);
      const error = expectError(response, 405, 'method_not_allowed');
      expect(error.error.details).toEqual({ allowed });
      expect(response.headers.allow).toBe(allowed.join(', '));
    }
  });

  it('a path segment too long for the router is a 404 with the envelope (was a bare 414)', async () => {
    for (const url of [
      `/stream/streams/${'a'.repeat(300)}`,
      `/streams/${STREAM_ID}/nodes/${'n'.repeat(300)}/logs`,
    ]) {
      const error = expectError(await json(cp, 'GET', url), 404, 'not_found');
      expect(error.error.message).toContain('256');
    }
  });

  it('a malformed URL is a 400 with the envelope (was a bare Fastify body)', async () => {
    expectError(await json(cp, 'GET', '/stream/streams/%E0%A4%A'), 400, 'invalid_request');
  });
});

describe('stream document validation', () => {
  const create = (doc: unknown) => json(cp, 'POST', '/stream/streams', doc);

  async function refused(
    doc: unknown,
    status: number,
    code: Parameters<typeof expectError>[2],
    path: string,
  ) {
    const error = expectError(await create(doc), status, code);
    expect(error.error.details?.path, JSON.stringify(error)).toBe(path);
    const errors = error.error.details?.errors as { path: string; message: string }[] | undefined;
    if (errors !== undefined) expect(errors.map((e) => e.path)).toContain(path);
    await expectNoStreams();
    return error;
  }

  it('unknown fields: 400 with the pointer of the field, on stream, node and pipe', async () => {
    const top = await refused(
      variant((d) => (d.colour = 'red')),
      400,
      'invalid_request',
      '/colour',
    );
    expect(top.error.message).toContain("'colour' is not a known field");
    await refused(
      variant((d) => (d.nodes[1].colour = 'red')),
      400,
      'invalid_request',
      '/nodes/1/colour',
    );
    await refused(
      variant((d) => (d.pipes[0].weight = 1)),
      400,
      'invalid_request',
      '/pipes/0/weight',
    );
    // meta and config are open; a built-in's config is checked by its own schema (422).
    ok(await create(variant((d) => (d.meta.owner = 'lab 3'))));
  });

  it('wrong types and missing fields: 400 with pointers', async () => {
    await refused(
      variant((d) => (d.nodes = 'none')),
      400,
      'invalid_request',
      '/nodes',
    );
    await refused(
      variant((d) => (d.pipes = {})),
      400,
      'invalid_request',
      '/pipes',
    );
    await refused(
      variant((d) => (d.meta = [])),
      400,
      'invalid_request',
      '/meta',
    );
    await refused(
      variant((d) => (d.meta.tags = 'demo')),
      400,
      'invalid_request',
      '/meta/tags',
    );
    await refused(
      variant((d) => (d.nodes[0].config = [1])),
      400,
      'invalid_request',
      '/nodes/0/config',
    );
    await refused(
      variant((d) => (d.nodes[0].executable = 7)),
      400,
      'invalid_request',
      '/nodes/0/executable',
    );
    await refused(
      variant((d) => delete d.id),
      400,
      'invalid_request',
      '/id',
    );
    await refused(
      variant((d) => (d.id = 42)),
      400,
      'invalid_request',
      '/id',
    );
    await refused(
      variant((d) => delete d.nodes[1].executable),
      400,
      'invalid_request',
      '/nodes/1/executable',
    );
    await refused(
      variant((d) => delete d.nodes[0].id),
      400,
      'invalid_request',
      '/nodes/0/id',
    );
    await refused(
      variant((d) => delete d.pipes[0].source),
      400,
      'invalid_request',
      '/pipes/0/source',
    );
    await refused(
      variant((d) => delete d.pipes[0].destination),
      400,
      'invalid_request',
      '/pipes/0/destination',
    );
    await refused(
      variant((d) => (d.pipes[0].capacity = 1.5)),
      400,
      'invalid_request',
      '/pipes/0/capacity',
    );
    await refused(
      variant((d) => (d.pipes[0].capacity = 0)),
      422,
      'validation_failed',
      '/pipes/0/capacity',
    );
  });

  it('enum values: 422 with the allowed values', async () => {
    const type = await refused(
      variant((d) => (d.nodes[0].type = 'PRODUCER')),
      422,
      'validation_failed',
      '/nodes/0/type',
    );
    expect(type.error.message).toContain('EXECUTABLE_PRODUCER');
    await refused(
      variant((d) => (d.nodes[0].meta.type = 'SINK')),
      422,
      'validation_failed',
      '/nodes/0/meta/type',
    );
    await refused(
      variant((d) => (d.pipes[0].policy = 'fifo')),
      422,
      'validation_failed',
      '/pipes/0/policy',
    );
  });

  it('stream id must be a UUID (any version, any case)', async () => {
    for (const bad of [
      'not-a-uuid',
      '',
      '6f1c2f0e8a4b4c1d9e2f3a4b5c6d7e8f',
      `${STREAM_ID}0`,
      `{${STREAM_ID}}`,
    ]) {
      await refused(
        variant((d) => (d.id = bad)),
        422,
        'validation_failed',
        '/id',
      );
    }
    ok(await create(referenceStream('00000000-0000-0000-0000-000000000000')));
    ok(await json(cp, 'POST', '/streams', referenceStream('FFFFFFFF-FFFF-1FFF-AFFF-FFFFFFFFFFFF')));
  });

  it('node and pipe ids: non-empty, at most 128 characters, unique', async () => {
    await refused(
      variant((d) => (d.nodes[0].id = '')),
      422,
      'validation_failed',
      '/nodes/0/id',
    );
    await refused(
      variant((d) => (d.nodes[0].id = 'n'.repeat(129))),
      422,
      'validation_failed',
      '/nodes/0/id',
    );
    const dupNode = await refused(
      variant((d) => (d.nodes[1].id = d.nodes[0].id)),
      422,
      'validation_failed',
      '/nodes/1/id',
    );
    expect(dupNode.error.message).toContain('/nodes/0/id');
    await refused(
      variant((d) =>
        d.pipes.push({ ...d.pipes[0], source: d.nodes[0].id, destination: d.nodes[1].id, targetPort: 'in' }),
      ),
      422,
      'validation_failed',
      '/pipes/1/id',
    );
  });

  it('pipes must name nodes of the stream; no self-loop, no cycle, no duplicate', async () => {
    const [a, b] = [referenceStream().nodes[0]!.id, referenceStream().nodes[1]!.id];
    const dangling = await refused(
      variant((d) => (d.pipes[0].destination = 'ghost')),
      422,
      'validation_failed',
      '/pipes/0/destination',
    );
    expect(dangling.error.message).toContain('ghost');
    await refused(
      variant((d) => (d.pipes[0].source = 'ghost')),
      422,
      'validation_failed',
      '/pipes/0/source',
    );
    await refused(
      variant((d) => (d.pipes[0] = { id: 'loop', source: b, destination: b })),
      422,
      'validation_failed',
      '/pipes/0',
    );
    await refused(
      variant((d) => d.pipes.push({ id: 'again', source: a, target: b })),
      422,
      'validation_failed',
      '/pipes/1',
    );
    await refused(
      variant((d) => (d.pipes[0].target = 'elsewhere')),
      422,
      'validation_failed',
      '/pipes/0/target',
    );
  });

  it('a cycle is refused with its nodes named in order', async () => {
    const doc = {
      id: STREAM_ID,
      nodes: ['f1', 'f2', 'f3', 'f4'].map((id) => ({ id, executable: 'filter', config: { lowpass: 10 } })),
      pipes: [
        { id: 'a', source: 'f1', destination: 'f2' },
        { id: 'b', source: 'f2', destination: 'f3' },
        { id: 'c', source: 'f3', destination: 'f4' },
        { id: 'd', source: 'f4', destination: 'f2' },
      ],
    };
    const error = await refused(doc, 422, 'validation_failed', '/pipes/3');
    expect(error.error.message).toContain('f2 → f3 → f4 → f2');
  });

  it('role violations: producer with input, consumer with output, built-in source with input', async () => {
    const nodes = (...extra: object[]) => [
      {
        id: 'g',
        executable: 'signal-generator',
        config: { sampleRate: 100, amplitudes: [1], frequencies: [1] },
      },
      { id: 'x', executable: 'filter', config: { lowpass: 10 } },
      ...extra,
    ];
    const producer = await refused(
      { id: STREAM_ID, nodes: nodes(), pipes: [{ id: 'p', source: 'x', destination: 'g' }] },
      422,
      'validation_failed',
      '/pipes/0/destination',
    );
    expect(producer.error.message).toContain('signal-generator is a source');
    await refused(
      {
        id: STREAM_ID,
        nodes: [
          ...nodes(),
          { id: 'y', type: 'EXECUTABLE_PRODUCER', executable: 'filter', config: { lowpass: 1 } },
        ],
        pipes: [{ id: 'p', source: 'x', destination: 'y' }],
      },
      422,
      'validation_failed',
      '/pipes/0/destination',
    );
    await refused(
      {
        id: STREAM_ID,
        nodes: [
          ...nodes(),
          { id: 'y', meta: { type: 'SOURCE' }, executable: 'filter', config: { lowpass: 1 } },
        ],
        pipes: [{ id: 'p', source: 'x', destination: 'y' }],
      },
      422,
      'validation_failed',
      '/pipes/0/destination',
    );
    await refused(
      {
        id: STREAM_ID,
        nodes: nodes({ id: 'c', type: 'EXECUTABLE_CONSUMER', executable: 'filter', config: { lowpass: 1 } }),
        pipes: [{ id: 'p', source: 'c', destination: 'x' }],
      },
      422,
      'validation_failed',
      '/pipes/0/source',
    );
    for (const metaType of ['OUTPUT', 'RECORDER']) {
      await refused(
        {
          id: STREAM_ID,
          nodes: nodes({ id: 'c', meta: { type: metaType }, executable: 'filter', config: { lowpass: 1 } }),
          pipes: [{ id: 'p', source: 'c', destination: 'x' }],
        },
        422,
        'validation_failed',
        '/pipes/0/source',
      );
    }
    await refused(
      {
        id: STREAM_ID,
        nodes: nodes({ id: 'l', executable: 'logger' }),
        pipes: [{ id: 'p', source: 'l', destination: 'x' }],
      },
      422,
      'validation_failed',
      '/pipes/0/source',
    );
    await refused(
      { id: STREAM_ID, nodes: [{ id: 'l', executable: 'logger', type: 'EXECUTABLE_PRODUCER' }], pipes: [] },
      422,
      'validation_failed',
      '/nodes/0/type',
    );
  });

  it('ports: unknown ports of built-ins are refused, named ports of the built-ins accepted', async () => {
    const sg = await refused(
      variant((d) => (d.pipes[0].sourcePort = 'aux')),
      422,
      'validation_failed',
      '/pipes/0/sourcePort',
    );
    expect(sg.error.message).toContain("'aux'");
    await refused(
      variant((d) => (d.pipes[0].targetPort = 'aux')),
      422,
      'validation_failed',
      '/pipes/0/targetPort',
    );
    ok(await create(variant((d) => Object.assign(d.pipes[0], { sourcePort: 'out', targetPort: 'in' }))));
  });

  it('built-in config errors point into /nodes/N/config/...', async () => {
    const cases: [(d: Record<string, any>) => void, string, 400 | 422][] = [
      [(d) => (d.nodes[0].config.sampleRate = 0), '/nodes/0/config/sampleRate', 422],
      [(d) => (d.nodes[0].config.sampleRate = 50_000), '/nodes/0/config/sampleRate', 422],
      [(d) => (d.nodes[0].config.sampleRate = '250'), '/nodes/0/config/sampleRate', 400],
      [(d) => delete d.nodes[0].config.amplitudes, '/nodes/0/config/amplitudes', 400],
      [(d) => (d.nodes[0].config.frequencies = [10]), '/nodes/0/config/frequencies', 422],
      [(d) => (d.nodes[0].config.frequencies = [10, 200]), '/nodes/0/config/frequencies/1', 422],
      [(d) => (d.nodes[0].config.channels = 0), '/nodes/0/config/channels', 422],
      [(d) => (d.nodes[0].config.bogus = true), '/nodes/0/config/bogus', 400],
      [(d) => (d.nodes[1].config.port = 70_000), '/nodes/1/config/port', 422],
      [(d) => (d.nodes[1].config = {}), '/nodes/1/config/port', 400],
      [(d) => (d.nodes[1].config.format = 'xml'), '/nodes/1/config/format', 422],
      [(d) => (d.nodes[1].config.restart = 'sometimes'), '/nodes/1/config/restart', 422],
    ];
    for (const [change, path, status] of cases) {
      const code = status === 400 ? 'invalid_request' : 'validation_failed';
      const error = expectError(await create(variant(change)), status, code);
      expect(error.error.details?.path, JSON.stringify(error)).toBe(path);
      expect(error.error.message).toContain(path);
    }
    await expectNoStreams();
  });

  it('sampleRate: 0 is one fault answered with one message (was two: "> 0" and ">= 1")', async () => {
    const error = expectError(
      await create(variant((d) => (d.nodes[0].config.sampleRate = 0))),
      422,
      'validation_failed',
    );
    expect(error.error.message).not.toMatch(/more problem/);
    expect(error.error.details?.errors).toEqual([
      { path: '/nodes/0/config/sampleRate', message: expect.stringMatching(/must be >= 1, got 0$/) },
    ]);
  });

  it('filter, recorder and eeg-source configs are checked by their own schemas', async () => {
    const one = (node: object) => ({ id: STREAM_ID, nodes: [node], pipes: [] });
    await refused(
      one({ id: 'f', executable: 'filter', config: {} }),
      422,
      'validation_failed',
      '/nodes/0/config',
    );
    await refused(
      one({ id: 'f', executable: 'filter', config: { highpass: 40, lowpass: 10 } }),
      422,
      'validation_failed',
      '/nodes/0/config/highpass',
    );
    await refused(
      one({ id: 'f', executable: 'filter', config: { lowpass: 10, order: 9 } }),
      422,
      'validation_failed',
      '/nodes/0/config/order',
    );
    for (const filename of ['../x.edf', 'a/b.csv', '.hidden', 'a..b']) {
      await refused(
        one({ id: 'r', executable: 'recorder', config: { filename, format: 'edf' } }),
        422,
        'validation_failed',
        '/nodes/0/config/filename',
      );
    }
    await refused(
      one({ id: 'e', executable: 'eeg-source', config: { channels: ['O1', 'XX'] } }),
      422,
      'validation_failed',
      '/nodes/0/config/channels/1',
    );
    await refused(
      one({ id: 'e', executable: 'eeg-source', config: { samplingFrequency: 300 } }),
      422,
      'validation_failed',
      '/nodes/0/config/samplingFrequency',
    );
    ok(
      await create(
        one({
          id: 'e',
          executable: 'eeg-source',
          config: { channels: ['o1', 'Fp1'], samplingFrequency: 500 },
        }),
      ),
    );
  });

  it('a document with a malformed item and another defect answers 400 for the malformed one', async () => {
    const doc = {
      id: STREAM_ID,
      nodes: [
        { id: 'a', executable: '/bin/ls' },
        { id: 'b', executable: 'no-such-program' },
        { id: 'l', executable: 'logger' },
      ],
      pipes: [{ id: 'p', source: 'a' }],
    };
    const error = expectError(await create(doc), 400, 'invalid_request');
    expect(error.error.details?.path).toBe('/pipes/0/destination');
    expect((error.error.details?.errors as unknown[]).length).toBe(3);
  });

  it('lists every problem in details.errors with a pointer each', async () => {
    const doc = variant((d) => {
      d.nodes[0].config.sampleRate = -1;
      d.pipes[0].destination = 'ghost';
    });
    const error = expectError(await create(doc), 422, 'validation_failed');
    const errors = error.error.details?.errors as { path: string }[];
    expect([...new Set(errors.map((e) => e.path))].sort()).toEqual([
      '/nodes/0/config/sampleRate',
      '/pipes/0/destination',
    ]);
    expect(error.error.message).toMatch(/\d more problems?\)/);
  });

  it('stream_exists (409) keeps the first stream', async () => {
    ok(await create(referenceStream()));
    const error = expectError(await create(chainStream(STREAM_ID)), 409, 'stream_exists');
    expect(error.error.details).toEqual({ path: '/id' });
    const read = ok<{ stream: { nodes: unknown[] } }>(await json(cp, 'GET', `/stream/streams/${STREAM_ID}`));
    expect(read.stream.nodes).toHaveLength(2);
  });

  it('PUT is validated like a create, and a refused PUT changes nothing', async () => {
    ok(await create(referenceStream()));
    const before = ok(await json(cp, 'GET', `/stream/streams/${STREAM_ID}`));
    const bad = variant((d) => {
      delete d.id;
      d.pipes[0].source = 'ghost';
    });
    const error = expectError(
      await json(cp, 'PUT', `/stream/streams/${STREAM_ID}`, bad),
      422,
      'validation_failed',
    );
    expect(error.error.details?.path).toBe('/pipes/0/source');
    expectError(
      await json(cp, 'PUT', `/stream/streams/${STREAM_ID}`, { nodes: [], extra: 1 }),
      400,
      'invalid_request',
    );
    expectError(await json(cp, 'PUT', `/stream/streams/${STREAM_ID}`, [1]), 400, 'invalid_request');
    expect(ok(await json(cp, 'GET', `/stream/streams/${STREAM_ID}`))).toEqual(before);
  });
});
