/**
 * The OpenAPI document's examples and node schema: every operation shows an example answer (and
 * an example request when it takes a body), every example the document shows is valid against
 * the schema beside it, and a node's `config` is checked by its built-in's own schema.
 */
import { rmSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULTS } from '../../src/service/config.js';
import { BUILTINS } from '../../src/streams/executables/builtins.js';
import { type RunningServer, startServer } from '../../src/service/server.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { scratchDir } from '../support/scratch.js';

type Json = Record<string, unknown>;
interface Media {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
}

let server: RunningServer;
let document: {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json> };
};
const dataDir = scratchDir('headsetd-openapi-examples');

beforeAll(async () => {
  server = await startServer({
    workerEntry: STREAM_HOST,
    settings: { ...DEFAULTS, port: 0, dataDir },
    logger: pino({ level: 'silent' }),
    runtime: new FakeRuntime(),
  });
  document = (await server.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});

afterAll(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * A JSON Schema 2020-12 validator (OpenAPI 3.1's dialect) that resolves the document's components.
 * Each distinct schema is compiled once: many examples share one schema, and Ajv's own cache keys
 * on the schema object, which is new for every call.
 */
function validator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: 'openapi.json', components: document.components });
  const compiled = new Map<string, ValidateFunction>();
  return (schema: unknown, value: unknown): string[] => {
    const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/');
    let validate = compiled.get(text);
    if (validate === undefined) {
      validate = ajv.compile(JSON.parse(text) as Json);
      compiled.set(text, validate);
    }
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

function operations(): { name: string; op: Operation }[] {
  return Object.entries(document.paths).flatMap(([p, item]) =>
    Object.entries(item).map(([method, op]) => ({ name: `${method.toUpperCase()} ${p}`, op })),
  );
}

function examplesOf(media: Media): unknown[] {
  return [
    ...(media.example === undefined ? [] : [media.example]),
    ...Object.values(media.examples ?? {}).map((e) => e.value),
  ];
}

describe('the OpenAPI examples', () => {
  test('every operation shows a success answer, and a request when it takes a body', () => {
    const missing: string[] = [];
    for (const { name, op } of operations()) {
      const successes = Object.entries(op.responses).filter(([code]) => code.startsWith('2'));
      // A WebSocket (101) has no body to show: its answer's description shows a message instead.
      if (successes.length === 0) {
        const upgrade = op.responses['101'] as { description?: string } | undefined;
        const message = /A message: `(.*)`$/.exec(upgrade?.description ?? '')?.[1];
        if (message === undefined) missing.push(`${name}: WebSocket message`);
        else expect(() => JSON.parse(message) as unknown).not.toThrow();
        continue;
      }
      const answered = successes.some(([, r]) =>
        Object.values(r.content ?? {}).some((m) => examplesOf(m).length > 0),
      );
      if (!answered) missing.push(`${name}: answer`);
      if (op.requestBody !== undefined) {
        const asked = Object.values(op.requestBody.content).some((m) => examplesOf(m).length > 0);
        if (!asked) missing.push(`${name}: request`);
      }
    }
    expect(missing).toEqual([]);
  });

  test('every example the document shows is valid against its schema', () => {
    const check = validator();
    let checked = 0;
    const invalid: string[] = [];
    for (const { name, op } of operations()) {
      const places: [string, Media][] = [
        ...Object.entries(op.requestBody?.content ?? {}).map(([t, m]): [string, Media] => [
          `request ${t}`,
          m,
        ]),
        ...Object.entries(op.responses).flatMap(([code, r]) =>
          Object.entries(r.content ?? {}).map(([t, m]): [string, Media] => [`${code} ${t}`, m]),
        ),
      ];
      for (const [where, media] of places) {
        for (const example of examplesOf(media)) {
          checked += 1;
          const errors = check(media.schema ?? {}, example);
          if (errors.length > 0) invalid.push(`${name} ${where}: ${errors.join('; ')}`);
        }
      }
    }
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      for (const example of (schema.examples as unknown[] | undefined) ?? []) {
        checked += 1;
        const errors = check(schema, example);
        if (errors.length > 0) invalid.push(`component ${name}: ${errors.join('; ')}`);
      }
    }
    expect(invalid).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });
});

describe("the document's node", () => {
  const node = { $ref: '#/components/schemas/Node' };

  test('has one variant per built-in, with that built-in’s config schema, and one open variant', () => {
    const variants = document.components.schemas.Node?.oneOf as Json[];
    expect(variants).toHaveLength(BUILTINS.length + 1);
    for (const builtin of BUILTINS) {
      const variant = variants.find((v) =>
        JSON.stringify((v.properties as Json).executable).includes(`"${builtin.name}"`),
      );
      const documented = (variant?.properties as Json).config as Json;
      expect(Object.keys(documented.properties as Json)).toEqual(
        Object.keys((builtin.configSchema as { properties: Json }).properties),
      );
    }
  });

  test("checks a built-in's config by its schema and leaves a program's config open", () => {
    const check = validator();
    const generator = { sampleRate: 250, amplitudes: [1], frequencies: [10] };
    expect(check(node, { id: 'g', executable: 'signal-generator', config: generator })).toEqual([]);
    expect(check(node, { id: 'g', executable: 'signal-generator', config: { sampleRate: 250 } })).not.toEqual(
      [],
    );
    expect(check(node, { id: 'f', executable: 'filter', config: { order: 12, lowpass: 40 } })).not.toEqual(
      [],
    );
    expect(check(node, { id: 'w', executable: 'websocket', config: { port: 0, colour: 'red' } })).not.toEqual(
      [],
    );
    expect(check(node, { id: 'l', executable: 'logger' })).toEqual([]);
    expect(
      check(node, { id: 'b', executable: 'python3 band_power.py', config: { anything: [1, 'x'] } }),
    ).toEqual([]);
  });
});
