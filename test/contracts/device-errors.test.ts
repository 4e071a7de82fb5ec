/**
 * A device refusal outside the Headset contract's reach, as its typed class on every
 * implementation: a lost link (the simulation's control; on hardware, an unplugged headset). The
 * HTTP answer it becomes is unchanged (503 device_unavailable, same message: test/api).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { DeviceUnavailableError } from '../../src/device/errors.js';
import { createReplayHeadset } from '../../src/device/replay/index.js';
import { ManualClock } from '../../src/device/replay/manual-clock.js';
import { createSimulatedHeadset } from '../../src/device/simulated/index.js';
import type { SimulatedHeadset } from '../../src/device/simulated/simulated-headset.js';
import { fixture } from '../formats/fixtures.js';

const implementations: [string, (clock: ManualClock) => SimulatedHeadset][] = [
  ['simulated', (clock) => createSimulatedHeadset({ seed: 5, clock, initialMotorPosition: 'scalp' })],
  ['replay', (clock) => createReplayHeadset(fixture('S002R01.edf'), { clock })],
];

let device: SimulatedHeadset | undefined;
afterEach(async () => {
  await device?.close();
  device = undefined;
});

describe.each(implementations)('%s', (_name, make) => {
  test('a lost device refuses motor commands with DeviceUnavailableError (disconnected) until it is back', async () => {
    device = make(new ManualClock(0));
    device.simulation.setConnected(false);
    const error = await device.motors
      .move([{ electrode: 'O1', movement: 'STOP' }])
      .then(undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(DeviceUnavailableError);
    expect(error).toMatchObject({ code: 'device_unavailable', reason: 'disconnected' });
    expect((error as DeviceUnavailableError).message).toContain('not connected');
    device.simulation.setConnected(true);
    await device.motors.move([{ electrode: 'O1', movement: 'STOP' }]);
  });
});
