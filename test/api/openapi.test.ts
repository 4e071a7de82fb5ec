/**
 * The OpenAPI document of the service as wired for real (every plugin): every operation documents
 * a success answer (2xx, or 101 for a WebSocket) and its error responses, and each plugin's
 * routes are in it.
 */
import { rmSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { DEFAULTS } from '../../src/service/config.js';
import { compileAllValidators } from '../../src/api/validation.js';
import { type RunningServer, startServer } from '../../src/service/server.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { scratchDir } from '../support/scratch.js';

let server: RunningServer;
const dataDir = scratchDir('headsetd-openapi');

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

type Operation = { responses?: Record<string, unknown>; requestBody?: unknown };

test('every operation documents its success answer and its errors', async () => {
  const response = await server.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  const document = response.json<{ openapi: string; paths: Record<string, Record<string, Operation>> }>();
  expect(document.openapi).toBe('3.1.0');
  const operations = Object.entries(document.paths).flatMap(([p, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]) => ({ name: `${method.toUpperCase()} ${p}`, op })),
  );
  expect(operations.length).toBeGreaterThan(90);
  for (const { name, op } of operations) {
    const codes = Object.keys(op.responses ?? {});
    expect(
      codes.some((c) => c.startsWith('2') || c === '101'),
      `${name} documents a success`,
    ).toBe(true);
    expect(
      codes.some((c) => c.startsWith('4')),
      `${name} documents its errors`,
    ).toBe(true);
  }
  // Spot checks across every plugin: streams and aliases, system, guides, recordings, quick streams.
  for (const p of [
    '/stream/streams/{id}/signal',
    '/streams/{id}/signal',
    '/system/motors/position',
    '/electrodes/impedance/map',
    '/system/recordings/{name}',
    '/stream/start',
    '/streams/stream/start',
    '/system/electrodes/{position}',
  ]) {
    expect(document.paths[p], p).toBeDefined();
  }
});

test("every route's request schemas compile under the strict validator (they are compiled lazily)", () => {
  expect(() => {
    compileAllValidators(server.app);
  }).not.toThrow();
});

test('/docs renders the document although Swagger UI is loaded only by the first request to it', async () => {
  const page = await server.app.inject({ method: 'GET', url: '/docs' });
  expect(page.statusCode).toBe(200);
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  expect(page.body).toContain('swagger-initializer.js');
  const script = await server.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
  expect(script.statusCode).toBe(200);
  const documented = await server.app.inject({ method: 'GET', url: '/docs/json' });
  const served = await server.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(documented.json()).toEqual(served.json());
  // A path under /docs that Swagger UI does not serve is the service's own 404.
  const missing = await server.app.inject({ method: 'GET', url: '/docs/nothing' });
  expect(missing.statusCode).toBe(404);
  expect(missing.json()).toMatchObject({ success: false, error: { code: 'not_found' } });
});
