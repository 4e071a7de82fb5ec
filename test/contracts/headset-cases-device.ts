/**
 * The Headset contract's cases on the device as a whole: its clock, status, identity and close
 * (after which every activity is refused with a DeviceUnavailableError).
 */
import { expect } from 'vitest';
import { DeviceUnavailableError } from '../../src/device/errors.js';
import type { HeadsetCase } from './headset-case.js';
import { requirePart } from '../../src/device/capabilities.js';
import { capabilities } from '../../src/device/capabilities.js';

export const DEVICE_CASES: readonly HeadsetCase[] = [
  {
    title:
      'the simulated wearer is the simulated headset’s only; where present, a flicker looked at and closed eyes show in its state',
    covers: ['wearer'],
    async run({ device }) {
      const { wearer } = device;
      expect(wearer !== undefined).toBe(device.info().kind === 'simulated');
      if (wearer === undefined) return;
      expect(wearer.state()).toMatchObject({ frequency: null, eyes: 'open' });
      expect(wearer.lookAt({ frequency: 12 })).toMatchObject({ frequency: 12, eyes: 'open' });
      expect(wearer.setEyes('closed')).toMatchObject({ frequency: 12, eyes: 'closed' });
      const latency = wearer.state().latencyMs;
      expect(latency).toBeGreaterThanOrEqual(100);
      expect(latency).toBeLessThanOrEqual(200);
      wearer.lookAt({ frequency: null });
      expect(wearer.setEyes('open')).toMatchObject({ frequency: null, eyes: 'open' });
      await Promise.resolve();
    },
  },
  {
    title: 'close refuses acquisition with DeviceUnavailableError; twice is safe',
    covers: ['close', 'eeg.start'],
    async run({ device }) {
      await device.close();
      const error = await device.eeg.start('client').then(undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(DeviceUnavailableError);
      expect(error).toMatchObject({ reason: 'closed' });
      await device.close();
    },
  },
  {
    title: 'the device keeps time on the clock it was given',
    covers: ['clock'],
    async run({ device, clock }) {
      expect(device.clock).toBe(clock);
    },
  },
  {
    title: 'status follows the activities: idle, acquiring, moving; the battery as the power supply reads it',
    needs: ['motors', 'battery'],
    covers: ['status', 'eeg.start', 'eeg.stop', 'motors.move', 'motors.stopAll', 'power.battery'],
    async run({ device }) {
      expect(device.status()).toMatchObject({ state: 'idle', impedance: { measuring: false } });
      await device.eeg.start('client');
      expect(device.status()).toMatchObject({
        state: 'acquiring',
        eeg: { streaming: true, owners: ['client'] },
      });
      await device.eeg.stop('client');
      await requirePart(device, 'motors').move([{ electrode: 'O1', movement: 'RETRACT', displacement: 5 }]);
      expect(device.status()).toMatchObject({ state: 'moving', motors: { moving: ['O1'] } });
      requirePart(device, 'motors').stopAll();
      const battery = requirePart(device, 'battery').battery();
      expect(device.status().battery).toEqual({ percent: battery.percent, isCharging: battery.isCharging });
    },
  },
  {
    title: 'info names the kind of device and its identity; only a replay device names a recording',
    covers: ['info'],
    async run({ device }) {
      const info = device.info();
      expect(info.kind).toMatch(/^[a-z][a-z0-9-]*$/);
      for (const field of ['model', 'hardware', 'firmware', 'serial'] as const) {
        expect(info[field]).toMatch(/\S/);
      }
      expect(info.recording !== undefined).toBe(info.kind === 'replay');
    },
  },
  {
    title:
      'status of any device: idle, then acquiring; without motors nothing moves, without a battery none is reported',
    covers: ['status', 'eeg.start'],
    async run({ device }) {
      const { motors, battery } = capabilities(device);
      expect(device.status()).toMatchObject({ state: 'idle', impedance: { measuring: false } });
      await device.eeg.start('client');
      expect(device.status()).toMatchObject({ state: 'acquiring', eeg: { streaming: true } });
      if (!motors) expect(device.status().motors).toEqual({ moving: [], stalled: [] });
      if (!battery) expect(device.status().battery).toBeNull();
    },
  },
  {
    title:
      'close ends a waiting measurement and refuses acquisition and measurement with DeviceUnavailableError; twice is safe',
    needs: ['impedance'],
    covers: ['close', 'impedance.measure', 'eeg.start'],
    async run({ device }) {
      const measuring = requirePart(device, 'impedance').measure(['O1']);
      await device.close();
      const during = await measuring.then(undefined, (error: unknown) => error);
      expect(during).toBeInstanceOf(DeviceUnavailableError);
      expect(during).toMatchObject({ code: 'device_unavailable', reason: 'closed' });
      for (const work of [device.eeg.start('client'), requirePart(device, 'impedance').measure(['O1'])]) {
        const error = await work.then(undefined, (e: unknown) => e);
        expect(error).toBeInstanceOf(DeviceUnavailableError);
        expect(error).toMatchObject({ reason: 'closed' });
      }
      await device.close();
    },
  },
];
