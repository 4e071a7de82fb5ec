/**
 * A device's parts, as the API names them (docs/devices.md §Capabilities): which it has is read
 * from the `Headset` itself (a part it lacks is absent), so the list a client sees and the parts a
 * caller can use are one fact. A caller takes a part with `requirePart`, which answers the part or
 * refuses with the not_supported answer every path gives for a part the device lacks; a service
 * that combines several parts (a seating job moves motors and measures impedance) takes them all
 * up front with `requireParts`, before anything is held or started.
 */
import { DeviceNotSupportedError } from './errors.js';
import type {
  DeviceCapabilities,
  DeviceCapability,
  EegAcquisition,
  Headset,
  ImpedanceMeter,
  Imu,
  LedController,
  MotorController,
  PeripheralBus,
  PowerSupply,
} from './headset.js';

/** The part of a Headset behind each capability. */
export interface DeviceParts {
  readonly eeg: EegAcquisition;
  readonly impedance: ImpedanceMeter;
  readonly motors: MotorController;
  readonly leds: LedController;
  readonly imu: Imu;
  readonly battery: PowerSupply;
  readonly peripheralBus: PeripheralBus;
}

/** Where each capability's part is on a Headset (the API's `battery` is the device's `power`). */
const PART_OF: { readonly [C in DeviceCapability]: (device: Headset) => DeviceParts[C] | undefined } = {
  eeg: (device) => device.eeg,
  impedance: (device) => device.impedance,
  motors: (device) => device.motors,
  leds: (device) => device.leds,
  imu: (device) => device.imu,
  battery: (device) => device.power,
  peripheralBus: (device) => device.bus,
};

/** Every capability, in the order the API lists them. */
export const DEVICE_CAPABILITIES = Object.freeze(Object.keys(PART_OF) as DeviceCapability[]);

/** The device in words, as its not_supported answers name it (`The OpenBCI Cyton (/dev/ttyUSB0)`). */
export function deviceName(device: Headset): string {
  const { model, source } = device.info();
  return source === undefined ? `The ${model}` : `The ${model} (${source})`;
}

/** The parts the device has: those it does not lack. */
export function capabilities(device: Headset): DeviceCapabilities {
  return {
    eeg: hasPart(device, 'eeg'),
    impedance: hasPart(device, 'impedance'),
    motors: hasPart(device, 'motors'),
    leds: hasPart(device, 'leds'),
    imu: hasPart(device, 'imu'),
    battery: hasPart(device, 'battery'),
    peripheralBus: hasPart(device, 'peripheralBus'),
  };
}

export function hasPart(device: Headset, capability: DeviceCapability): boolean {
  return PART_OF[capability](device) !== undefined;
}

/** The device's part, or `DeviceNotSupportedError` (409 not_supported) naming the device and the part. */
export function requirePart<C extends DeviceCapability>(device: Headset, capability: C): DeviceParts[C] {
  const part = PART_OF[capability](device);
  if (part === undefined) throw new DeviceNotSupportedError(deviceName(device), capability);
  return part;
}

/** The parts asked for, or `DeviceNotSupportedError` for the first of them the device lacks. */
export function requireParts<C extends DeviceCapability>(
  device: Headset,
  ...parts: readonly C[]
): Pick<DeviceParts, C> {
  const found: Partial<Record<C, unknown>> = {};
  for (const part of parts) found[part] = requirePart(device, part);
  return found as Pick<DeviceParts, C>;
}
