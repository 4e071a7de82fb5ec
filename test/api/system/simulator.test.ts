/**
 * /simulator/stimulus: the simulated headset's wearer looks at a flicker or closes their eyes; any
 * other device answers 404 saying the path is the simulator's. (What the EEG then shows is tested
 * on the model: src/device/simulated/wearer.test.ts; end to end through the ssvep node:
 * test/e2e/ssvep-simulator.test.ts.)
 */
import Fastify from 'fastify';
import { expect, test } from 'vitest';
import { registerBodyParsers } from '../../../src/api/body.js';
import { installErrorHandling } from '../../../src/api/error-handler.js';
import { installValidation } from '../../../src/api/validation.js';
import { createReplayHeadset } from '../../../src/device/replay/index.js';
import { openDatabase } from '../../../src/platform/store/database.js';
import { writeTestEdf } from '../../support/write-edf.js';
import { errorOf, json, pluginOptions, systemApp, wiredPlugins } from './support.js';
import { scratchDir } from '../../support/scratch.js';

const dir = scratchDir('headsetd-simulator');

test('the simulated headset takes a flicker, eyes closed, and answers its wearer’s state', async () => {
  const s = await systemApp();
  try {
    const post = (body: unknown) =>
      s.app.inject({ method: 'POST', url: '/simulator/stimulus', payload: body as object });
    const first = json(await s.app.inject({ method: 'GET', url: '/simulator/stimulus' })).stimulus as Record<
      string,
      unknown
    >;
    expect(first).toMatchObject({ frequency: null, amplitude: 3, eyes: 'open' });
    expect(first.latencyMs).toBeGreaterThanOrEqual(100);
    expect(first.latencyMs).toBeLessThanOrEqual(200);
    expect(json(await post({ frequency: 12 })).stimulus).toMatchObject({ frequency: 12, eyes: 'open' });
    expect(json(await post({ eyes: 'closed' })).stimulus).toMatchObject({ frequency: 12, eyes: 'closed' });
    expect(json(await post({ frequency: 8.57, amplitude: 1.5 })).stimulus).toMatchObject({
      frequency: 8.57,
      amplitude: 1.5,
    });
    expect(json(await post({ frequency: null, eyes: 'open' })).stimulus).toMatchObject({
      frequency: null,
      eyes: 'open',
    });
    expect(s.device.wearer?.state().frequency).toBeNull();
    const bad = await post({ frequency: -3 });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).message).toMatch(/frequency/);
    expect((await post({ frequency: 12, blink: true })).statusCode).toBe(400);
  } finally {
    await s.close();
  }
});

test('another device answers 404 naming the simulator, for both methods', async () => {
  const file = writeTestEdf(dir, 'one.edf', [{ label: 'O1', samplesPerRecord: 100 }], { records: 2 });
  const dataDir = scratchDir('headsetd-simulator-data');
  const db = openDatabase(dataDir);
  const device = createReplayHeadset(file, { seed: 1 });
  const app = Fastify();
  installErrorHandling(app);
  installValidation(app);
  await registerBodyParsers(app);
  await app.register(wiredPlugins(pluginOptions(device, db, dataDir), { guides: false }));
  try {
    for (const request of [
      { method: 'POST' as const, url: '/simulator/stimulus', payload: { frequency: 12 } },
      { method: 'GET' as const, url: '/simulator/stimulus' },
    ]) {
      const answer = await app.inject(request);
      expect(answer.statusCode).toBe(404);
      expect(errorOf(answer)).toMatchObject({ code: 'not_found' });
      expect(errorOf(answer).message).toMatch(/simulated headset only.*replay/);
    }
  } finally {
    await app.close();
    await device.close();
    db.close();
  }
});
