/**
 * The dashboard's routes (docs/dashboard.md): GET / and GET /dashboard/{file} answer the built files
 * with their Content-Security-Policy; beyond loopback they load without the token while every API
 * path still needs it; Host, Origin and Sec-Fetch-Site refuse them as they refuse the API; and the
 * editor's dry run, POST /stream/streams/validate, answers what a create would without creating.
 * Needs dist/web/ (`npm run build`, run before the tests).
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { dashboardCsp } from '../../src/api/dashboard.js';
import { openDatabase } from '../../src/platform/store/database.js';
import { StreamManager } from '../../src/streams/manager.js';
import { StreamStore } from '../../src/streams/store.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { tempDataDir } from '../support/service.js';
import { call } from './helpers.js';
import type { ControlPlane } from '../support/control-plane.js';
import { controlPlane } from '../support/control-plane.js';

const TOKEN = 'a-token-of-at-least-32-characters-xx';

const DOCUMENT = `id: 3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c
nodes:
  - id: gen
    executable: signal-generator
    config: { sampleRate: 250, amplitudes: [1], frequencies: [10] }
  - id: log
    executable: logger
pipes:
  - { id: p1, source: gen, destination: log }
`;

describe('on loopback', () => {
  let cp: ControlPlane;
  beforeAll(async () => {
    cp = await controlPlane();
  });
  afterAll(async () => {
    await cp.close();
  });

  test('GET / answers the page, GET /dashboard/{file} its script and style, each with the policy', async () => {
    const page = await call(cp, { method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    // Its own origin, and WebSockets to any port of the host it was loaded by (websocket nodes').
    expect(page.headers['content-security-policy']).toBe(dashboardCsp('localhost'));
    expect(page.headers['content-security-policy']).toContain(
      "connect-src 'self' ws://localhost:* wss://localhost:*;",
    );
    expect(page.body).toContain('<script type="module" src="/dashboard/app.js"></script>');
    const script = await call(cp, { method: 'GET', url: '/dashboard/app.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.body.length).toBeGreaterThan(10_000);
    const style = await call(cp, { method: 'GET', url: '/dashboard/app.css' });
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
    // Nothing from the network: no URL of another host in the files the page loads.
    for (const body of [page.body, style.body]) expect(body).not.toMatch(/https?:\/\//);
  });

  test('any other file under /dashboard is 404 with the envelope, and no path leads out', async () => {
    for (const url of ['/dashboard/nope.js', '/dashboard/..%2Fheadsetd.mjs', '/dashboard/index.html%00']) {
      const response = await call(cp, { method: 'GET', url });
      expect(response.statusCode).toBe(404);
    }
  });

  test('the API answers as before: unknown paths 404, and the dashboard adds none to the OpenAPI document', async () => {
    expect((await call(cp, { method: 'GET', url: '/nothing-here' })).statusCode).toBe(404);
    expect((await call(cp, { method: 'POST', url: '/' })).statusCode).toBe(405);
    const openapi = JSON.parse((await call(cp, { method: 'GET', url: '/openapi.json' })).body) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(openapi.paths).filter((p) => p === '/' || p.startsWith('/dashboard'))).toEqual([]);
  });

  test('a foreign Origin, Host or cross-site fetch is refused at / as on the API', async () => {
    const origin = await call(cp, { method: 'GET', url: '/', headers: { origin: 'http://evil.example' } });
    expect(origin.statusCode).toBe(403);
    const host = await call(cp, { method: 'GET', url: '/', headers: { host: 'evil.example' } });
    expect(host.statusCode).toBe(403);
    const site = await call(cp, {
      method: 'GET',
      url: '/dashboard/app.js',
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(site.statusCode).toBe(403);
  });

  test('POST /stream/streams/validate answers a valid document as a create would, and creates nothing', async () => {
    const ok = await call(cp, {
      method: 'POST',
      url: '/stream/streams/validate',
      headers: { 'content-type': 'text/yaml' },
      payload: DOCUMENT,
    });
    expect(JSON.parse(ok.body)).toEqual({ id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c', success: true });
    const list = JSON.parse((await call(cp, { method: 'GET', url: '/stream/streams' })).body) as {
      streams: unknown[];
    };
    expect(list.streams).toEqual([]);
  });

  test("its errors are the create's: a YAML error with its line, a bad value with its pointer, an id taken", async () => {
    const broken = await call(cp, {
      method: 'POST',
      url: '/stream/streams/validate',
      headers: { 'content-type': 'text/yaml' },
      payload: DOCUMENT.replace('  - id: log\n', '  - id: log\n   bad indent: [\n'),
    });
    expect(broken.statusCode).toBe(400);
    expect(JSON.parse(broken.body).error.details.line).toBeGreaterThan(5);

    const invalid = await call(cp, {
      method: 'POST',
      url: '/stream/streams/validate',
      headers: { 'content-type': 'text/yaml' },
      payload: DOCUMENT.replace('sampleRate: 250', 'sampleRate: -3'),
    });
    expect(invalid.statusCode).toBe(422);
    expect(JSON.parse(invalid.body).error.details.path).toBe('/nodes/0/config/sampleRate');

    await call(cp, {
      method: 'POST',
      url: '/stream/streams/yaml',
      headers: { 'content-type': 'text/yaml' },
      payload: DOCUMENT,
    });
    const taken = await call(cp, {
      method: 'POST',
      url: '/stream/streams/validate',
      headers: { 'content-type': 'text/yaml' },
      payload: DOCUMENT,
    });
    expect(taken.statusCode).toBe(409);
    expect(JSON.parse(taken.body).error).toMatchObject({ code: 'stream_exists', details: { path: '/id' } });
  });
});

describe('beyond loopback (a token is set)', () => {
  const app = (async () => {
    const db = openDatabase(tempDataDir());
    const manager = new StreamManager(new StreamStore(db), new FakeRuntime(), {
      context: { executablesDirs: [] },
    });
    return createApp({
      manager,
      logger: pino({ level: 'silent' }),
      version: 't',
      security: {
        token: TOKEN,
        allowedOrigins: [],
        allowedHosts: [],
        hostname: () => 'headset',
        port: () => 42069,
      },
    });
  })();
  afterAll(async () => {
    await (await app).close();
  });

  test('the page and its files load without the token; every API path still needs it', async () => {
    const a = await app;
    for (const url of ['/', '/dashboard/app.js', '/dashboard/app.css']) {
      expect(
        (await a.inject({ method: 'GET', url, headers: { host: 'headset.local:42069' } })).statusCode,
      ).toBe(200);
    }
    for (const url of ['/stream/streams', '/system/status', '/docs', '/openapi.json', '/dashboard-not']) {
      const response = await a.inject({ method: 'GET', url, headers: { host: 'headset.local:42069' } });
      expect(response.statusCode, url).toBe(401);
    }
    const authorised = await a.inject({
      method: 'GET',
      url: '/stream/streams',
      headers: { host: 'headset.local:42069', authorization: `Bearer ${TOKEN}` },
    });
    expect(authorised.statusCode).toBe(200);
  });

  test('the token exemption does not lift the Host and Origin rules', async () => {
    const a = await app;
    expect(
      (await a.inject({ method: 'GET', url: '/', headers: { host: 'rebound.example' } })).statusCode,
    ).toBe(403);
    const origin = await a.inject({
      method: 'GET',
      url: '/',
      headers: { host: 'headset.local:42069', origin: 'http://evil.example' },
    });
    expect(origin.statusCode).toBe(403);
  });
});
