/**
 * GET /system/status on the replay device answers which file signals it plays as which electrode
 * and which it dropped, with the reason (docs/device.md §Replay device); other devices answer no
 * `replay`.
 */
import Fastify from 'fastify';
import { expect, test } from 'vitest';
import { registerBodyParsers } from '../../../src/api/body.js';
import { installErrorHandling } from '../../../src/api/error-handler.js';
import { installValidation } from '../../../src/api/validation.js';
import { createReplayHeadset } from '../../../src/device/replay/index.js';
import { openDatabase } from '../../../src/platform/store/database.js';
import { writeTestEdf } from '../../support/write-edf.js';
import { json, pluginOptions, systemApp, wiredPlugins } from './support.js';
import { scratchDir } from '../../support/scratch.js';

const dir = scratchDir('headsetd-replay-status');

test('the replay device reports its mapped and dropped channels in GET /system/status', async () => {
  const file = writeTestEdf(
    dir,
    'mixed.edf',
    [
      { label: 'EEG Fp1', samplesPerRecord: 100 },
      { label: 'EOG left', samplesPerRecord: 100 },
      { label: 'T7', samplesPerRecord: 100 },
      { label: 'Cz', samplesPerRecord: 50 },
      { label: 'CMS', samplesPerRecord: 100 },
    ],
    { records: 2 },
  );
  const dataDir = scratchDir('headsetd-replay-status-data');
  const db = openDatabase(dataDir);
  const device = createReplayHeadset(file, { seed: 1 });
  const app = Fastify();
  installErrorHandling(app);
  installValidation(app);
  await registerBodyParsers(app);
  await app.register(wiredPlugins(pluginOptions(device, db, dataDir), { guides: false }));
  try {
    const status = json(await app.inject({ method: 'GET', url: '/system/status' })).status as {
      replay: Record<string, unknown>;
    };
    expect(status.replay).toEqual({
      file,
      format: 'edf',
      variant: 'plain',
      sampleRate: 100,
      durationSeconds: 2,
      channels: [
        { electrode: 'T3', label: 'T7', unit: 'uV' },
        { electrode: 'FP1', label: 'EEG Fp1', unit: 'uV' },
      ],
      dropped: [
        { label: 'EOG left', reason: "names none of the headset's 19 EEG electrodes" },
        { label: 'Cz', reason: 'runs at 50 Hz, not at the 100 Hz of the other EEG channels' },
        { label: 'CMS', reason: 'names CMS, which has no EEG channel on the headset' },
      ],
      warnings: ['signal "Cz" runs at 50 Hz, not at the 100 Hz of the other EEG channels; it is not played'],
    });
  } finally {
    await app.close();
    await device.close();
    db.close();
  }
});

test('a simulated headset answers no replay', async () => {
  const s = await systemApp();
  try {
    const status = json(await s.app.inject({ method: 'GET', url: '/system/status' })).status as object;
    expect('replay' in status).toBe(false);
  } finally {
    await s.close();
  }
});
