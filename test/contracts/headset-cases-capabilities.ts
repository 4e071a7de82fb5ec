/**
 * The Headset contract's case on capabilities: a device has the parts it has and no other (a part
 * it lacks is absent, never a stand-in that answers made-up values); the capabilities the API lists
 * are read from those parts, and asking for a missing part is refused with a
 * DeviceNotSupportedError (not_supported) naming the device and the part.
 */
import { expect } from 'vitest';
import { capabilities, DEVICE_CAPABILITIES, deviceName, requirePart } from '../../src/device/capabilities.js';
import { DeviceNotSupportedError } from '../../src/device/errors.js';
import type { DeviceCapability } from '../../src/device/headset.js';
import type { HeadsetCase } from './headset-case.js';

/** The member of a Headset that is each capability's part. */
const MEMBER: Readonly<
  Record<DeviceCapability, 'eeg' | 'impedance' | 'motors' | 'leds' | 'imu' | 'power' | 'bus'>
> = {
  eeg: 'eeg',
  impedance: 'impedance',
  motors: 'motors',
  leds: 'leds',
  imu: 'imu',
  battery: 'power',
  peripheralBus: 'bus',
};

export const CAPABILITY_CASES: readonly HeadsetCase[] = [
  {
    title:
      'capabilities are the parts the device has; a missing part is absent, and asking for it is refused with DeviceNotSupportedError naming the device and the part',
    covers: ['info'],
    async run({ device }) {
      const listed = capabilities(device);
      expect(Object.keys(listed)).toEqual([
        'eeg',
        'impedance',
        'motors',
        'leds',
        'imu',
        'battery',
        'peripheralBus',
      ]);
      expect(DEVICE_CAPABILITIES).toEqual(Object.keys(listed));
      expect(listed.eeg).toBe(true);
      const name = deviceName(device);
      for (const part of DEVICE_CAPABILITIES) {
        const member = device[MEMBER[part]];
        expect(listed[part], part).toBe(member !== undefined);
        if (member !== undefined) {
          expect(requirePart(device, part), part).toBe(member);
          continue;
        }
        const refusal = (() => {
          try {
            requirePart(device, part);
          } catch (error) {
            return error;
          }
          return undefined;
        })();
        expect(refusal, part).toBeInstanceOf(DeviceNotSupportedError);
        expect(refusal).toMatchObject({
          code: 'not_supported',
          capability: part,
          device: name,
          details: { device: name, capability: part },
        });
        expect((refusal as Error).message.startsWith(`${name} has no `)).toBe(true);
      }
    },
  },
];
