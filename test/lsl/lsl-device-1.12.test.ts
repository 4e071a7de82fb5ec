/**
 * The LSL device against liblsl 1.12 outlets (lsl-device-suite.ts), its clock against liblsl
 * 1.12's inlet (lsl-device-time-suite.ts), and the refusal when no stream answers.
 */
import { expect, test } from 'vitest';
import { createLslDriver, LslUnavailableError } from '../../src/device/lsl/index.js';
import { LOOPBACK_NETWORK } from '../../src/lsl/network.js';
import { lslDeviceSuite } from './lsl-device-suite.js';
import { lslDeviceTimeSuite } from './lsl-device-time-suite.js';

lslDeviceSuite('1.12', 34572);
lslDeviceTimeSuite('1.12', 34572);

const NETWORK = { ...LOOPBACK_NETWORK, multicastPort: 34571, basePort: 34572, portRange: 16 };

test('no stream matches: open() fails with device_unavailable, naming the query', async () => {
  const d = createLslDriver('name=Nobody Here&type=EEG?wait=1', { network: NETWORK });
  const error = await d.open().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(LslUnavailableError);
  expect((error as LslUnavailableError).code).toBe('device_unavailable');
  expect((error as LslUnavailableError).query).toBe('name=Nobody Here&type=EEG');
  expect((error as Error).message).toMatch(
    /^No LSL stream matches name=Nobody Here&type=EEG \(LSL query session_id='default' and name='Nobody Here' and type='EEG'\) on this machine .* within 1 s/,
  );
  await d.close();
});
