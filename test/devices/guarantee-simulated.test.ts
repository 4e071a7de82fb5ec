/**
 * The data guarantee on the simulated headset (test/support/device-guarantee.ts): every output of
 * eeg-source holds the rows the device made, values and times; the device's rows are its ADC's
 * codes at gain 24 (each value a whole number of steps), one sample period apart.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { adcLsbMicrovolts } from '../../src/device/adc.js';
import { runGuarantee } from '../support/device-guarantee.js';
import { liblslOf, liblslVersions } from '../support/liblsl.js';
import { type Service, startService, tempDataDir } from '../support/service.js';

const PORTS = { multicastPort: 28611, basePort: 28612, portRange: 16 };
let service: Service;

beforeAll(async () => {
  const dataDir = tempDataDir();
  service = await startService({ dataDir, lsl: PORTS });
}, 240_000);

afterAll(async () => {
  await service.stop();
});

test('simulated headset: every sample and time stamp through BDF+, EDF+, CSV, websocket and LSL', async () => {
  const [version] = liblslVersions();
  const liblsl = version === undefined ? undefined : { ...(await liblslOf(version)), ports: PORTS };
  const delivered = await runGuarantee({
    service,
    streamId: '6a1f0e2d-4c3b-4a59-8e7d-1f2a3b4c5d6e',
    name: 'guarantee-simulated',
    rows: 500,
    ...(liblsl === undefined ? {} : { liblsl }),
  });
  expect(delivered.channels).toHaveLength(19);
  expect(delivered.rate).toBe(250);
  const lsb = adcLsbMicrovolts(24);
  for (const row of delivered.rows) {
    for (const value of row) {
      const code = Math.round(value / lsb);
      expect(Math.abs(value - Math.fround(code * lsb))).toBe(0);
    }
  }
  delivered.times.forEach((time, i) => {
    if (i > 0) expect(time - (delivered.times[i - 1] as number)).toBeCloseTo(4, 2);
  });
}, 120_000);
