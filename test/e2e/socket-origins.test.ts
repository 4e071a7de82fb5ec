/**
 * Regression: a websocket node's port upgraded any request, so a web page (`Origin:
 * http://evil.example`) or a DNS-rebinding site (`Host: evil.example:P`) received the headset's
 * EEG there, while the API port refused the same upgrade. Now every socket of the real service,
 * the API's (quick stream, system events) and each websocket node's, answers those with 403 and
 * the error envelope, and keeps serving allowed origins and hosts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type Service, startService } from '../support/service.js';
import { nextMessage, tryUpgrade } from '../support/upgrade.js';
import { websocketPort } from '../support/live-e2e.js';

const STREAM = '5c0c8a4e-0d2f-4c3a-9b1e-2f3a4b5c6d7e';

let service: Service;
/** ws:// URLs of the sockets, by what they serve. */
const sockets: Record<string, { url: string; port: number }> = {};

function post(url: string, body: unknown) {
  return json(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

beforeAll(async () => {
  service = await startService({
    args: ['--allow-origin', 'http://app.example', '--allow-host', 'headset.example'],
  });
  const created = await post(`${service.url}/stream/streams`, {
    id: STREAM,
    nodes: [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 250, amplitudes: [1], frequencies: [10], channels: 2 },
      },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
    ],
    pipes: [{ id: 'p', source: 'gen', destination: 'ws' }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  await post(`${service.url}/stream/streams/${STREAM}/signal`, { signal: 'start' });
  const port = await websocketPort(service, STREAM);
  sockets['websocket node'] = { url: `ws://127.0.0.1:${port}/`, port };

  const quick = await post(`${service.url}/stream/start`, { sampleRate: 250, channels: ['Cz'] });
  expect(quick.status, JSON.stringify(quick.body)).toBe(200);
  const api = { port: service.port };
  sockets['quick stream'] = { ...api, url: `ws://127.0.0.1:${service.port}/stream/${quick.body.streamId}` };
  sockets['system events'] = { ...api, url: `ws://127.0.0.1:${service.port}/system/events` };
}, 40_000);

afterAll(async () => {
  await service.stop();
});

const FOREIGN: [string, (port: number) => Record<string, string>, string][] = [
  ['a foreign Origin', () => ({ origin: 'http://evil.example' }), 'origin'],
  ['a foreign Host', (port) => ({ host: `evil.example:${port}` }), 'host'],
  [
    'a DNS-rebinding page',
    (port) => ({ origin: 'http://evil.example', host: `evil.example:${port}` }),
    'host',
  ],
  ['a cross-site request without Origin', () => ({ 'sec-fetch-site': 'cross-site' }), 'secFetchSite'],
  ['a same-site request without Origin', () => ({ 'sec-fetch-site': 'same-site' }), 'secFetchSite'],
];

describe.each(['websocket node', 'quick stream', 'system events'])('the %s socket', (which) => {
  it.each(FOREIGN)('refuses %s with 403 and the error envelope', async (_what, headers, detail) => {
    const socket = sockets[which];
    if (socket === undefined) throw new Error(`no ${which} socket`);
    const outcome = await tryUpgrade(socket.url, headers(socket.port));
    if (outcome.kind === 'open') {
      outcome.socket.terminate();
      throw new Error(`the ${which} socket accepted the upgrade`);
    }
    expect(outcome.status).toBe(403);
    expect(outcome.contentType).toMatch(/^application\/json/);
    expect(outcome.body).toMatchObject({
      success: false,
      error: { code: 'forbidden_origin', message: expect.any(String) as unknown },
    });
    expect(Object.keys((outcome.body as { error: { details: object } }).error.details)).toContain(detail);
  });

  it.each([
    ['no Origin', () => ({})],
    ['an --allow-origin', () => ({ origin: 'http://app.example' })],
    ['an --allow-host', (port: number) => ({ host: `headset.example:${port}` })],
    ['a request typed into the address bar', () => ({ 'sec-fetch-site': 'none' })],
  ])('accepts %s', async (_what, headers) => {
    const socket = sockets[which];
    if (socket === undefined) throw new Error(`no ${which} socket`);
    const outcome = await tryUpgrade(socket.url, headers(socket.port));
    if (outcome.kind !== 'open') throw new Error(`refused: ${JSON.stringify(outcome)}`);
    if (which !== 'system events') expect(await nextMessage(outcome.socket)).toContain('"data"');
    outcome.socket.terminate();
  });
});

describe("the websocket node's port", () => {
  it('answers a plain request with the envelope: 403 for a foreign origin, else 400 (upgrade needed)', async () => {
    const socket = sockets['websocket node'];
    if (socket === undefined) throw new Error('no websocket node');
    const http = socket.url.replace('ws://', 'http://');
    const foreign = await json(http, { headers: { origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('forbidden_origin');
    const plain = await json(http);
    expect(plain.status).toBe(400);
    expect(plain.body.error.code).toBe('invalid_request');
  });
});
