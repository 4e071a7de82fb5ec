/**
 * The parts a device does not have, as the Headset interface still requires them: every member
 * refuses with a `DeviceNotSupportedError` (not_supported, naming the device and the part), never
 * answering made-up values. Commands (promises) reject; reads throw.
 */
import { DeviceNotSupportedError } from '../errors.js';
import type {
  DeviceCapability,
  ImpedanceMeter,
  Imu,
  LedController,
  MotorController,
  PeripheralBus,
  PowerSupply,
} from '../headset.js';

export class MissingParts {
  constructor(private readonly deviceName: string) {}

  error(capability: DeviceCapability): DeviceNotSupportedError {
    return new DeviceNotSupportedError(this.deviceName, capability);
  }

  impedance(): ImpedanceMeter {
    const fail = (): never => {
      throw this.error('impedance');
    };
    return {
      measure: () => Promise.reject(this.error('impedance')),
      measuring: fail,
      measurementMs: fail,
    };
  }

  motors(): MotorController {
    const fail = (): never => {
      throw this.error('motors');
    };
    return {
      positions: fail,
      states: fail,
      move: () => Promise.reject(this.error('motors')),
      reset: () => Promise.reject(this.error('motors')),
      waitUntilComplete: () => Promise.reject(this.error('motors')),
      stopAll: fail,
    };
  }

  leds(): LedController {
    return {
      read: () => {
        throw this.error('leds');
      },
      set: () => Promise.reject(this.error('leds')),
    };
  }

  imu(): Imu {
    const fail = (): never => {
      throw this.error('imu');
    };
    return { primary: fail, node: fail, rate: fail, setRate: fail };
  }

  power(): PowerSupply {
    const fail = (): never => {
      throw this.error('battery');
    };
    return { battery: fail, lowBatteryThreshold: fail, setLowBatteryThreshold: fail };
  }

  bus(): PeripheralBus {
    return { command: () => Promise.reject(this.error('peripheralBus')) };
  }
}
