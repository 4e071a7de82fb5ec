/**
 * Device refusals outside the Headset contract's reach, as their typed classes on every
 * implementation: a lost link (the simulation's control; on hardware, an unplugged headset), and
 * a stream's subscription to channels the device does not acquire (the streams' adapter,
 * frame-source.ts). The HTTP answers they become are unchanged (503 device_unavailable,
 * 409 channels_unavailable, same messages and details: test/api).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { ChannelsUnavailableError, DeviceUnavailableError } from '../../src/device/errors.js';
import { headsetFrameSource } from '../../src/device/sources/frame-source.js';
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

  test('a subscription naming a channel the device does not acquire is ChannelsUnavailableError', async () => {
    device = make(new ManualClock(0));
    const acquired = device.eeg.config().channels;
    await device.eeg.configure({ channels: acquired.filter((c) => c !== 'O1') });
    const error = await headsetFrameSource(device)
      .subscribe({ channels: ['CZ', 'o1'] }, () => undefined)
      .then(undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ChannelsUnavailableError);
    expect(error).toMatchObject({ code: 'channels_unavailable', channels: ['O1'], field: 'channels/1' });
  });
});
