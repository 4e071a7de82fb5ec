/**
 * A query parameter given a value outside its enum (`?colorScheme=traffic`, `?format=jpg`) was
 * answered "must be one of ..., got undefined": the error handler looked the value up where
 * Fastify does not keep it. Every query enum of the OpenAPI document is tried here with a value
 * it does not allow: the message names the value given and the allowed ones, and details.path
 * points at the query parameter.
 */
import { rmSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { DEFAULTS } from '../../src/service/config.js';
import { type RunningServer, startServer } from '../../src/service/server.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { operationsOf } from '../support/openapi-fuzz.js';
import { assertEnvelope } from './helpers.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { scratchDir } from '../support/scratch.js';

let server: RunningServer;
const dataDir = scratchDir('headsetd-query-enum');

beforeAll(async () => {
  server = await startServer({
    workerEntry: STREAM_HOST,
    settings: { ...DEFAULTS, port: 0, dataDir },
    logger: pino({ level: 'silent' }),
    runtime: new FakeRuntime(),
  });
});

afterAll(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const GIVEN = 'not-a-choice';

test('a query enum error names the value given and the allowed ones (was: got undefined)', async () => {
  const document = (await server.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
    paths: Record<
      string,
      Record<string, { requestBody?: { content: Record<string, { example?: unknown }> } }>
    >;
  }>();
  // A valid body (the operation's example) so that the query is what the request gets wrong.
  const exampleBody = (method: string, route: string): string =>
    JSON.stringify(
      document.paths[route]?.[method.toLowerCase()]?.requestBody?.content['application/json']?.example ?? {},
    );
  const tried: string[] = [];
  for (const op of operationsOf(document)) {
    for (const parameter of op.parameters) {
      const allowed = parameter.schema.enum as unknown[] | undefined;
      if (parameter.in !== 'query' || allowed === undefined) continue;
      const url = `${op.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000')}?${parameter.name}=${GIVEN}`;
      const response = await server.app.inject({
        method: op.method as 'GET',
        url,
        ...(op.body === undefined
          ? {}
          : { payload: exampleBody(op.method, op.path), headers: { 'content-type': 'application/json' } }),
      });
      const where = `${op.method} ${url}: ${response.body}`;
      expect(response.statusCode, where).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, where).toBeLessThan(500);
      const body = assertEnvelope(response);
      expect(body.error.details?.path, where).toBe(`/querystring/${parameter.name}`);
      expect(body.error.message, where).toContain(`got "${GIVEN}"`);
      for (const value of allowed) expect(body.error.message, where).toContain(JSON.stringify(value));
      tried.push(`${op.method} ${op.path} ${parameter.name}`);
    }
  }
  // The two seen in the field are among those tried.
  expect(tried).toEqual(
    expect.arrayContaining([
      'GET /electrodes/impedance/map colorScheme',
      'GET /electrodes/impedance/map format',
      'GET /electrodes/impedance/history timeRange',
    ]),
  );
});

test('GET /electrodes/impedance/map?colorScheme=traffic says which schemes there are', async () => {
  const response = await server.app.inject({
    method: 'GET',
    url: '/electrodes/impedance/map?colorScheme=traffic',
  });
  expect(response.statusCode).toBe(422);
  const body = assertEnvelope(response);
  expect(body.error.message).toBe(
    'The query at /querystring/colorScheme: must be one of "default", "colorblind", got "traffic".',
  );
  expect(body.error.details?.path).toBe('/querystring/colorScheme');
});
