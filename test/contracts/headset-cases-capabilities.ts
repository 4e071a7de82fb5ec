/**
 * The Headset contract's case on capabilities: a device says which parts it has, and every member
 * of a part it lacks refuses with a DeviceNotSupportedError (not_supported) naming the device and
 * the part, a read by throwing, a command by rejecting; never with made-up values.
 */
import { expect } from 'vitest';
import { DeviceNotSupportedError } from '../../src/device/errors.js';
import type { DeviceCapability, Headset } from '../../src/device/headset.js';
import type { HeadsetCase } from './headset-case.js';

type Call = (device: Headset) => unknown;

/** Each member of each part, called with a valid argument. */
const MEMBERS: Readonly<Record<Exclude<DeviceCapability, 'eeg'>, Readonly<Record<string, Call>>>> = {
  impedance: {
    measure: (d) => d.impedance.measure(['O1']),
    measuring: (d) => d.impedance.measuring(),
    measurementMs: (d) => d.impedance.measurementMs(),
  },
  motors: {
    positions: (d) => d.motors.positions(),
    states: (d) => d.motors.states(['O1']),
    move: (d) => d.motors.move([{ electrode: 'O1', movement: 'STOP' }]),
    reset: (d) => d.motors.reset('MIN'),
    waitUntilComplete: (d) => d.motors.waitUntilComplete(),
    stopAll: (d) => d.motors.stopAll(),
  },
  leds: {
    read: (d) => d.leds.read(),
    set: (d) => d.leds.set({ color: '#00ff00' }),
  },
  imu: {
    primary: (d) => d.imu.primary(),
    node: (d) => d.imu.node(0),
    rate: (d) => d.imu.rate(),
    setRate: (d) => {
      d.imu.setRate(100);
    },
  },
  battery: {
    battery: (d) => d.power.battery(),
    lowBatteryThreshold: (d) => d.power.lowBatteryThreshold(),
    setLowBatteryThreshold: (d) => {
      d.power.setLowBatteryThreshold(20);
    },
  },
  peripheralBus: {
    command: (d) =>
      d.bus.command({
        packetType: 1,
        cmdResp: 1,
        peripheral: 1,
        peripheralChannels: 0,
        parameter: [0, 1],
        data: [],
      }),
  },
};

async function outcome(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

export const CAPABILITY_CASES: readonly HeadsetCase[] = [
  {
    title:
      'capabilities say which parts the device has; every member of a missing part refuses with DeviceNotSupportedError naming the device and the part',
    covers: ['capabilities'],
    async run({ device }) {
      const capabilities = device.capabilities();
      expect(Object.keys(capabilities).sort()).toEqual(
        ['battery', 'eeg', 'imu', 'impedance', 'leds', 'motors', 'peripheralBus'].sort(),
      );
      expect(capabilities.eeg).toBe(true);
      for (const [part, members] of Object.entries(MEMBERS)) {
        if (capabilities[part as DeviceCapability]) continue;
        for (const [member, call] of Object.entries(members)) {
          const error = await outcome(() => call(device));
          expect(error, `${part}.${member}`).toBeInstanceOf(DeviceNotSupportedError);
          const refusal = error as DeviceNotSupportedError;
          expect(refusal.code).toBe('not_supported');
          expect(refusal.capability).toBe(part);
          expect(refusal.details).toEqual({ device: refusal.device, capability: part });
          expect(refusal.message.startsWith(`${refusal.device} has no `)).toBe(true);
        }
      }
    },
  },
];
