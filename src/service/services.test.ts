/**
 * The composition root's assembly: one set of services on one device, hub, store and settings,
 * shared by the /system and guide plugins, and closed together.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeRuntime } from '../../test/support/fake-runtime.js';
import { SettingsStore } from '../platform/store/settings-store.js';
import { createSimulatedHeadset, type SimulatedHeadset } from '../device/simulated/index.js';
import { EventHub } from '../events/hub.js';
import { deviceServices, quickStreamServices } from './services.js';
import { type Db, openDatabase } from '../platform/store/database.js';
import { StreamManager } from '../streams/manager.js';
import { StreamStore } from '../streams/store.js';
import { scratchDir } from '../../test/support/scratch.js';

let dataDir: string;
let db: Db;
let device: SimulatedHeadset;

function open() {
  dataDir = scratchDir('headsetd-services');
  db = openDatabase(dataDir);
  device = createSimulatedHeadset({ seed: 1 });
}

afterEach(async () => {
  await device.close();
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('deviceServices', () => {
  test('the /system and guide services share one device, hub, settings and job registry', async () => {
    open();
    const events = new EventHub(device);
    const settings = new SettingsStore(db);
    const services = deviceServices({
      device,
      events,
      db,
      settings,
      dataDir,
      httpPort: () => 1,
      version: 't',
    });
    const { system, guides } = services;
    expect(system.hub).toBe(events);
    expect(guides.context.hub).toBe(events);
    expect(guides.context.settings).toBe(settings);
    expect(guides.context.jobs).toBe(system.jobs);
    expect(system.streams()).toEqual({ total: 0, running: 0 });
    await services.close();
  });
});

describe('quickStreamServices', () => {
  test('start and forwarding share one registry; close disposes its sessions', async () => {
    open();
    const runtime = new FakeRuntime();
    const manager = new StreamManager(new StreamStore(db), runtime, { context: { executablesDirs: [] } });
    const quick = quickStreamServices({ manager, runtime });
    const { streamId } = await quick.streams.start({ source: 'eeg', channels: ['O1'] });
    expect(quick.forwarding.stop.bind(quick.forwarding, streamId)).toThrow(/forwards to no other headsetd/);
    expect(runtime.taps.get(`${streamId}/tap`)?.size).toBe(1);
    quick.close();
    expect(runtime.taps.get(`${streamId}/tap`)?.size ?? 0).toBe(0);
    await manager.close();
  });
});
