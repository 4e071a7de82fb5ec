/**
 * The plugins as the service wires them: through createApp's extraPlugins, beside the streams API,
 * the security hooks and the OpenAPI document.
 */
import { rmSync } from 'node:fs';
import { pluginOptions, wiredPlugins } from './support.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/api/app.js';
import { SettingsStore } from '../../../src/api/system/index.js';
import { createSimulatedHeadset } from '../../../src/device/simulated/index.js';
import { openDatabase } from '../../../src/platform/store/database.js';
import { StreamManager } from '../../../src/streams/manager.js';
import { StreamStore } from '../../../src/streams/store.js';
import { FakeRuntime } from '../../support/fake-runtime.js';
import { scratchDir } from '../../support/scratch.js';

describe('systemPlugin and guidesPlugin inside createApp', () => {
  const dataDir = scratchDir('headsetd-wired');
  const db = openDatabase(dataDir);
  const device = createSimulatedHeadset({ seed: 3 });
  const settings = new SettingsStore(db);
  const manager = new StreamManager(new StreamStore(db), new FakeRuntime(), {
    context: { executablesDirs: [] },
  });
  let app: Awaited<ReturnType<typeof createApp>>;

  beforeAll(async () => {
    const common = pluginOptions(device, db, dataDir, { httpPort: () => 42069, version: '9.9.9', settings });
    app = await createApp({
      manager,
      logger: pino({ level: 'silent' }),
      version: '9.9.9',
      security: {
        token: undefined,
        allowedOrigins: [],
        allowedHosts: [],
        // The machine's name, as the service wires it: never the stored one a client may set.
        hostname: () => 'headset',
        port: () => 42069,
      },
      extraPlugins: [wiredPlugins(common)],
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

  it('serves /system and guide paths and documents them in OpenAPI', async () => {
    const version = await app.inject({ method: 'GET', url: '/system/version' });
    expect(JSON.parse(version.body)).toMatchObject({ version: { service: '9.9.9', api: '1' } });
    const map = await app.inject({ method: 'GET', url: '/electrodes/impedance/map' });
    expect(map.statusCode).toBe(200);
    const doc = JSON.parse((await app.inject({ method: 'GET', url: '/openapi.json' })).body) as {
      paths: Record<string, unknown>;
    };
    for (const p of [
      '/system/healthz',
      '/system/config',
      '/system/events',
      '/electrodes/impedance/optimize',
      '/system/battery',
    ]) {
      expect(Object.keys(doc.paths)).toContain(p);
    }
  });

  it("accepts the machine's name in Host, and a name set through PATCH /system/hostname widens nothing", async () => {
    await app.inject({ method: 'PATCH', url: '/system/hostname', payload: { hostname: 'eeg-cap' } });
    const machine = await app.inject({
      method: 'GET',
      url: '/system/status',
      headers: { host: 'headset.local:42069' },
    });
    expect(machine.statusCode).toBe(200);
    for (const host of ['eeg-cap:42069', 'eeg-cap.local:42069', 'evil.example:42069']) {
      const res = await app.inject({ method: 'GET', url: '/system/status', headers: { host } });
      expect(res.statusCode, host).toBe(403);
    }
  });
});
