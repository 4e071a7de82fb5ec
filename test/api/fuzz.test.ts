/**
 * Fuzzing the Streams API with fast-check (docs/api.md §Errors: nothing answers 500 for anything a
 * client sends): random JSON values, random mutations of a valid stream deep inside it, and
 * random text under every accepted media type, on every body route. Every answer goes through
 * `call`, which fails on a 500 or on a non-2xx body that is not the envelope.
 */
import type { InjectOptions } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlane, controlPlane, referenceStream, STREAM_ID } from '../support/control-plane.js';
import { call, chainStream, json, ok, OTHER_ID, signal } from './helpers.js';

let cp: ControlPlane;
beforeAll(async () => {
  cp = await controlPlane();
});
afterAll(async () => {
  await cp.close();
});

/** A fresh running stream to aim the edits at, reset before each property. */
async function resetTarget(): Promise<void> {
  await call(cp, { method: 'DELETE', url: `/stream/streams/${OTHER_ID}` });
  ok(await json(cp, 'POST', '/stream/streams', chainStream(OTHER_ID)));
  ok(await signal(cp, OTHER_ID, 'start'));
  await cp.manager.settle();
}

/** The inject method type (light-my-request's, narrower than Fastify's HTTPMethods). */
type InjectMethod = NonNullable<InjectOptions['method']>;

const BODY_ROUTES: [InjectMethod, string][] = [
  ['POST', '/stream/streams'],
  ['POST', '/streams/yaml'],
  ['PUT', `/stream/streams/${OTHER_ID}`],
  ['POST', `/stream/streams/${OTHER_ID}/signal`],
  ['POST', `/stream/streams/${OTHER_ID}/nodes`],
  ['POST', `/streams/${OTHER_ID}/nodes/yaml`],
  ['DELETE', `/stream/streams/${OTHER_ID}/nodes`],
  ['POST', `/stream/streams/${OTHER_ID}/nodes/gen/signal`],
  ['POST', `/stream/streams/${OTHER_ID}/pipes`],
  ['POST', `/streams/${OTHER_ID}/pipes/yaml`],
  ['DELETE', `/stream/streams/${OTHER_ID}/pipes`],
];

/** Every JSON pointer-like path of a value, as key lists. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const here = [prefix];
  if (Array.isArray(value)) return [...here, ...value.flatMap((v, i) => pathsOf(v, [...prefix, i]))];
  if (value !== null && typeof value === 'object') {
    return [...here, ...Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...prefix, k]))];
  }
  return here;
}

function setAt(root: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
  return copy;
}

/** Values likely to upset a validator: wrong types, edge numbers, odd strings, nesting. */
const nasty = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    null,
    '',
    ' ',
    -1,
    0,
    1e308,
    -0,
    '__proto__',
    'constructor',
    '../../etc/passwd',
    '/bin/sh',
    'node /x/SignalGenerator.js',
    "'unclosed",
    'a\\',
    '\u0000',
    '\uD800',
    'x'.repeat(5000),
    [],
    {},
    [[[[[]]]]],
    { __proto__: { polluted: true } },
  ),
);

describe('fuzz: nothing answers 500', () => {
  it('random JSON values on every body route', async () => {
    await resetTarget();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...BODY_ROUTES),
        fc.jsonValue({ maxDepth: 4 }),
        async ([method, url], body) => {
          const response = await json(cp, method as 'POST', url, body);
          expect(response.statusCode).toBeLessThan(500);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('random values planted anywhere in a valid stream document', async () => {
    const valid = referenceStream();
    const paths = pathsOf(valid);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), nasty, fc.boolean(), async (path, value, asPut) => {
        const doc = setAt(valid, path, value);
        const response = asPut
          ? await json(cp, 'PUT', `/stream/streams/${OTHER_ID}`, doc)
          : await json(cp, 'POST', '/stream/streams', doc);
        expect(response.statusCode).toBeLessThan(500);
        if (!asPut && response.statusCode === 200)
          await call(cp, { method: 'DELETE', url: `/stream/streams/${STREAM_ID}` });
      }),
      { numRuns: 400 },
    );
  });

  it('random values planted in node and pipe edits of a running stream', async () => {
    await resetTarget();
    const node = { id: 'n', type: 'EXECUTABLE', executable: 'filter', config: { lowpass: 10, order: 2 } };
    const edge = {
      id: 'e',
      source: 'gen',
      destination: 'n',
      sourcePort: 'out',
      targetPort: 'in',
      capacity: 4,
    };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...pathsOf([node])),
        fc.constantFrom(...pathsOf([edge])),
        nasty,
        async (nodePath, pipePath, value) => {
          const nodes = await json(
            cp,
            'POST',
            `/stream/streams/${OTHER_ID}/nodes`,
            setAt([node], nodePath, value),
          );
          expect(nodes.statusCode).toBeLessThan(500);
          const pipes = await json(
            cp,
            'POST',
            `/stream/streams/${OTHER_ID}/pipes`,
            setAt([edge], pipePath, value),
          );
          expect(pipes.statusCode).toBeLessThan(500);
          await call(cp, { method: 'DELETE', url: `/stream/streams/${OTHER_ID}/nodes`, payload: ['n'] });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('random text under every media type the routes name, and some they do not', async () => {
    await resetTarget();
    const types = [
      'application/json',
      'text/yaml',
      'application/yaml',
      'application/x-yaml',
      'application/x-www-form-urlencoded',
      'text/plain',
      'application/octet-stream',
      'application/json; charset=utf-16',
    ];
    const textBody = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.constantFrom(
        '{',
        '[',
        '- - -',
        'a: *b',
        '&a [*a]',
        '!!python/object:os.system ls',
        '%YAML 1.1\n---\na: 1',
        'signal=%',
        '\uFEFF{}',
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...BODY_ROUTES),
        fc.constantFrom(...types),
        textBody,
        async ([method, url], type, body) => {
          const response = await call(cp, {
            method,
            url,
            payload: body,
            headers: { 'content-type': type },
          });
          expect(response.statusCode).toBeLessThan(500);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('random paths and methods under the streams prefix', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'streams',
        'stream',
        'nodes',
        'pipes',
        'yaml',
        'signal',
        'status',
        'logs',
        OTHER_ID,
        'gen',
        '%2F',
        '..',
        '%',
      ),
      fc.string({ maxLength: 10 }).map(encodeURIComponent),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
        fc.array(segment, { minLength: 1, maxLength: 6 }),
        async (method, segments) => {
          const response = await call(cp, { method, url: `/${segments.join('/')}` });
          expect(response.statusCode).toBeLessThan(500);
        },
      ),
      { numRuns: 300 },
    );
  });
});
