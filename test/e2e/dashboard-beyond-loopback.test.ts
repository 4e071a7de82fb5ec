/**
 * Regression: beyond loopback the dashboard's page and files answered 401, although they are meant
 * to load without the token so that the page can ask for it (docs/security.md §Sockets, rule 4).
 * The exemption set the token aside but kept the token file, from which the real service reads the
 * token it requires: only an app built without a token file (the API tests) let the page through.
 *
 * The real service, listening on `::ffff:127.0.0.1`: the IPv4 loopback address in IPv6 form,
 * which headsetd counts as beyond loopback, so nothing leaves this machine.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Service, startService } from '../support/service.js';

let service: Service;
let api: string;
let token: string;

beforeAll(async () => {
  service = await startService({ args: ['--host', '::ffff:127.0.0.1'] });
  api = `http://127.0.0.1:${service.port}`;
  token = readFileSync(path.join(service.dataDir, 'token'), 'utf8').trim();
});

afterAll(async () => {
  await service.stop();
});

test("beyond loopback the dashboard's page and its files load without the token", async () => {
  for (const [file, type] of [
    ['/', 'text/html'],
    ['/dashboard/app.js', 'text/javascript'],
    ['/dashboard/app.css', 'text/css'],
  ] as const) {
    const response = await fetch(`${api}${file}`);
    expect(response.status, file).toBe(200);
    expect(response.headers.get('content-type'), file).toContain(type);
  }
});

test('every API path still needs the token, and an unknown file under /dashboard tells nothing', async () => {
  for (const where of ['/system/status', '/stream/streams', '/openapi.json', '/docs', '/system/hostname']) {
    const response = await fetch(`${api}${where}`);
    expect(response.status, where).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'authentication_required',
    );
  }
  const authorised = await fetch(`${api}/system/status`, { headers: { authorization: `Bearer ${token}` } });
  expect(authorised.status).toBe(200);
  expect((await fetch(`${api}/dashboard/token`)).status).toBe(404);
});

test('the Host and Origin rules still apply to the page', async () => {
  const foreign = await fetch(`${api}/`, { headers: { origin: 'http://evil.example' } });
  expect(foreign.status).toBe(403);
  const crossSite = await fetch(`${api}/dashboard/app.js`, { headers: { 'sec-fetch-site': 'cross-site' } });
  expect(crossSite.status).toBe(403);
});
