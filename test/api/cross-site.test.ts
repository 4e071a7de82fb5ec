/**
 * Regression: `GET /system/sensors/impedance/all` measures the device, and a cross-site request
 * without Origin (an <img> tag on any web page: `Sec-Fetch-Site: cross-site`) was answered 200, so a
 * page looping it kept EEG acquisition from starting (device_busy). Now the browser's requests from
 * another site, cross-site or same-site, are refused unless they name an allowed Origin.
 */
import { rmSync } from 'node:fs';
import { pluginOptions, wiredPlugins } from './system/support.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { createSimulatedHeadset } from '../../src/device/simulated/index.js';
import { openDatabase } from '../../src/platform/store/database.js';
import { StreamManager } from '../../src/streams/manager.js';
import { StreamStore } from '../../src/streams/store.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { assertEnvelope } from './helpers.js';
import { scratchDir } from '../support/scratch.js';

const IMPEDANCE = '/system/sensors/impedance/all';
const dataDir = scratchDir('headsetd-cross-site');
const db = openDatabase(dataDir);
const device = createSimulatedHeadset({ seed: 5 });
const manager = new StreamManager(new StreamStore(db), new FakeRuntime(), {
  context: { executablesDirs: [] },
});
let app: Awaited<ReturnType<typeof createApp>>;

beforeAll(async () => {
  app = await createApp({
    manager,
    logger: pino({ level: 'silent' }),
    version: 't',
    security: {
      token: undefined,
      allowedOrigins: ['http://app.example'],
      allowedHosts: [],
      hostname: () => 'headset',
      port: () => 42069,
    },
    extraPlugins: [
      wiredPlugins(pluginOptions(device, db, dataDir, { httpPort: () => 42069 }), { guides: false }),
    ],
  });
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await manager.close();
  await device.close();
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function get(url: string, headers: Record<string, string>) {
  return app.inject({ method: 'GET', url, headers: { host: '127.0.0.1:42069', ...headers } });
}

describe('requests a browser sends from another site', () => {
  it.each(['cross-site', 'same-site'])(
    'refuses GET %s without Origin (an <img>): 403 forbidden_origin',
    async (site) => {
      const response = await get(IMPEDANCE, { 'sec-fetch-site': site, 'sec-fetch-dest': 'image' });
      expect(response.statusCode).toBe(403);
      const body = assertEnvelope(response);
      expect(body.error.code).toBe('forbidden_origin');
      expect(body.error.details).toEqual({ secFetchSite: site });
    },
  );

  it('accepts them from an allowed origin, and requests not from another site', async () => {
    for (const headers of [
      { 'sec-fetch-site': 'cross-site', origin: 'http://app.example' },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
      {},
    ]) {
      const response = await get(IMPEDANCE, headers);
      expect(response.statusCode, JSON.stringify(headers)).toBe(200);
    }
  });

  it('a page looping the measurement no longer keeps acquisition from starting', async () => {
    const loop = Array.from({ length: 10 }, () => get(IMPEDANCE, { 'sec-fetch-site': 'cross-site' }));
    const start = app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' });
    const answers = await Promise.all(loop);
    expect(answers.map((a) => a.statusCode)).toEqual(Array.from({ length: 10 }, () => 403));
    const started = await start;
    expect(started.statusCode, started.body).toBeLessThan(300);
    await app.inject({ method: 'DELETE', url: '/system/sensors/eeg/stream' });
  });
});
