/**
 * What every Headset must do, as the services and an app rely on it: one suite, run against the
 * simulated headset and the replay device, on a clock moved by hand so that device time is exact
 * and nothing sleeps.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { channelName } from '../../src/core/electrodes.js';
import type { Frame } from '../../src/core/frame.js';
import { type Headset, MOTOR_STATE } from '../../src/device/headset.js';
import { ManualClock } from '../../src/device/replay/manual-clock.js';
import { HeadsetdError } from '../../src/errors/catalog.js';
import { onDeviceTime } from '../support/device-time.js';

export function headsetContract(name: string, make: (clock: ManualClock) => Headset): void {
  describe(`Headset contract: ${name}`, () => {
    let device: Headset | undefined;
    afterEach(async () => {
      await device?.close();
      device = undefined;
    });
    function setUp(): { device: Headset; clock: ManualClock; frames: Frame[] } {
      const clock = new ManualClock(Date.UTC(2026, 0, 1));
      device = make(clock);
      const frames: Frame[] = [];
      device.eeg.onFrame((frame) => frames.push(frame));
      return { device, clock, frames };
    }

    test('a second of device time at 250 Hz is 250 rows per channel in ~10 ms frames: first flagged, seq and time continuous', async () => {
      const { device, clock, frames } = setUp();
      const channels = device.eeg.config().channels.slice(0, 3);
      await device.eeg.configure({ channels: [...channels], samplingFrequency: 250 });
      await device.eeg.start('client');
      clock.advance(1000);
      const rows = frames.reduce((n, f) => n + f.data.length / f.channels.length, 0);
      // A frame leaves once its last sample is due: the 250th row (due at 996 ms) may wait for the
      // frame it closes. Nothing is ever early, nothing is lost.
      expect(rows).toBeGreaterThanOrEqual(245);
      expect(rows).toBeLessThanOrEqual(250);
      expect(frames[0]?.discontinuity).toBe(true);
      for (const [i, frame] of frames.entries()) {
        expect(frame.channels).toEqual(channels.map(channelName));
        expect(frame.sampleRate).toBe(250);
        expect(frame.data.length / channels.length).toBeLessThanOrEqual(5);
        if (i === 0) continue;
        const previous = frames[i - 1] as Frame;
        expect(frame.seq).toBeGreaterThan(previous.seq);
        if (i > 0) expect(frame.discontinuity ?? false).toBe(false);
        const previousRows = previous.data.length / channels.length;
        expect(frame.timestamp - previous.timestamp).toBeCloseTo((previousRows * 1000) / 250, 6);
      }
      expect(device.eeg.state()).toMatchObject({ streaming: true, owners: ['client'], samples: rows });
      clock.advance(1000);
      const total = frames.reduce((n, f) => n + f.data.length / f.channels.length, 0);
      expect(total - rows).toBeGreaterThanOrEqual(245);
      expect(total).toBeGreaterThanOrEqual(495);
      expect(total).toBeLessThanOrEqual(500);
      expect(device.eeg.state().samples).toBe(total);
    });

    test('holds are per owner: acquisition stops when the last owner releases it, and no frame follows', async () => {
      const { device, clock, frames } = setUp();
      await device.eeg.start('client');
      await device.eeg.start('streams');
      await device.eeg.stop('client');
      clock.advance(100);
      expect(device.eeg.state().streaming).toBe(true);
      await device.eeg.stop('streams');
      expect(device.eeg.state()).toMatchObject({ streaming: false, owners: [] });
      const count = frames.length;
      clock.advance(500);
      expect(frames.length).toBe(count);
    });

    test('impedance is refused while EEG is acquired, and measured on device time otherwise', async () => {
      const { device, clock } = setUp();
      await device.eeg.start('client');
      await expect(device.impedance.measure(['O1'])).rejects.toMatchObject({ code: 'device_busy' });
      await device.eeg.stop('client');
      const values = await onDeviceTime(clock, device.impedance.measure(['O1', 'CZ']));
      expect(Object.keys(values)).toEqual(['O1', 'CZ']);
      for (const ohms of Object.values(values)) expect(ohms).toBeGreaterThan(0);
      await expect(device.impedance.measure(['XX'])).rejects.toBeInstanceOf(HeadsetdError);
    });

    test('an aborted measurement rejects with the signal’s reason and frees the meter at once', async () => {
      const { device, clock } = setUp();
      const controller = new AbortController();
      const measuring = device.impedance.measure(undefined, { signal: controller.signal });
      expect(device.impedance.measuring()).toBe(true);
      clock.advance(1);
      controller.abort(new Error('no longer wanted'));
      await expect(measuring).rejects.toThrow('no longer wanted');
      expect(device.impedance.measuring()).toBe(false);
      await device.eeg.start('client');
      expect(device.eeg.state().streaming).toBe(true);
    });

    test('a motor retracts by its displacement on device time and ends idle', async () => {
      const { device, clock } = setUp();
      const before = device.motors.positions(['O1']).O1 ?? 0;
      expect(before).toBeGreaterThan(10);
      await device.motors.move([{ electrode: 'O1', movement: 'RETRACT', displacement: 10 }]);
      expect(device.motors.states(['O1']).O1).toBe(MOTOR_STATE.moving);
      await onDeviceTime(clock, device.motors.waitUntilComplete(['O1']));
      expect(device.motors.positions(['O1']).O1).toBeCloseTo(before - 10, 9);
      expect(device.motors.states(['O1']).O1).toBe(MOTOR_STATE.idle);
      await expect(device.motors.move([{ electrode: 'O1', movement: 'SIDEWAYS' }])).rejects.toBeInstanceOf(
        HeadsetdError,
      );
    });

    test('a measurement is announced as an impedance event with the values in kΩ', async () => {
      const { device, clock } = setUp();
      const events: { type: string; data?: Record<string, number> }[] = [];
      device.onEvent((event) => events.push(event as never));
      const values = await onDeviceTime(clock, device.impedance.measure(['O1']));
      const event = events.find((e) => e.type === 'impedance');
      expect(event?.data?.O1).toBeCloseTo((values.O1 ?? 0) / 1000, 1);
    });
  });
}
