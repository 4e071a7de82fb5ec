/**
 * Regression: the stored device configuration used to configure EEG with its defaults (19
 * channels, 250 Hz) at start and on reset, replacing a replayed file's own rate and channels.
 * Only the EEG settings a user set are applied now.
 */
import { rmSync } from 'node:fs';
import { pluginOptions, wiredPlugins } from './support.js';
import Fastify from 'fastify';
import { afterEach, expect, test } from 'vitest';
import { registerBodyParsers } from '../../../src/api/body.js';
import { installErrorHandling } from '../../../src/api/error-handler.js';
import { installValidation } from '../../../src/api/validation.js';
import { createReplayHeadset } from '../../../src/device/replay/index.js';
import { openDatabase } from '../../../src/platform/store/database.js';
import { fixture } from '../../formats/fixtures.js';
import { scratchDir } from '../../support/scratch.js';

const FIXTURE = fixture('test_edf_stim_channel.edf'); // 128 Hz
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function appOn(dataDir: string) {
  const db = openDatabase(dataDir);
  const device = createReplayHeadset(FIXTURE, { seed: 1 });
  const app = Fastify();
  installErrorHandling(app);
  installValidation(app);
  await registerBodyParsers(app);
  await app.register(wiredPlugins(pluginOptions(device, db, dataDir), { guides: false }));
  await app.ready();
  cleanups.push(async () => {
    await app.close();
    await device.close();
    db.close();
  });
  return { app, device };
}

test('a replayed file keeps its own rate at start and after reset when the user set none', async () => {
  const dataDir = scratchDir('headsetd-replay-config');
  cleanups.push(async () => {
    rmSync(dataDir, { recursive: true, force: true });
  });
  const { app, device } = await appOn(dataDir);
  expect(device.eeg.config().samplingFrequency).toBe(128);
  const reset = await app.inject({ method: 'DELETE', url: '/system/sensors/eeg' });
  expect(reset.statusCode).toBe(200);
  expect(reset.json().config.samplingFrequency).toBe(128);
});

test('a rate the user set in the configuration applies, and null gives the file its rate back', async () => {
  const dataDir = scratchDir('headsetd-replay-config');
  cleanups.push(async () => {
    rmSync(dataDir, { recursive: true, force: true });
  });
  const { app, device } = await appOn(dataDir);
  const set = await app.inject({
    method: 'PATCH',
    url: '/system/config',
    headers: { 'content-type': 'application/merge-patch+json' },
    payload: { eeg: { samplingFrequency: 500 } },
  });
  expect(set.statusCode).toBe(200);
  expect(device.eeg.config().samplingFrequency).toBe(500);
  const back = await app.inject({
    method: 'PATCH',
    url: '/system/config',
    payload: { eeg: { samplingFrequency: null } },
  });
  expect(back.statusCode).toBe(200);
  expect(device.eeg.config().samplingFrequency).toBe(128);
});
