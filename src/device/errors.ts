/**
 * The errors a Headset throws: one class per kind of refusal, each with typed fields, so that a
 * caller reads what holds the device or which argument is wrong from the error itself rather than
 * from loosely named details (in the manner of undici's error classes). Each is a `HeadsetdError`
 * of the catalogue's code, with the same message and details as before the classes existed: the
 * API answers it as any other error, in the same envelope.
 *
 * | class | code | thrown when |
 * |---|---|---|
 * | DeviceArgumentError | validation_failed | a value is out of range or unknown (`field` names it) |
 * | DeviceBusyError | device_busy | acquisition and impedance measurement exclude each other (`heldBy`) |
 * | DeviceUnavailableError | device_unavailable | the device is closed, lost, or its recording cut short (`reason`) |
 * | ChannelsUnavailableError | channels_unavailable | a subscriber names channels the device does not acquire |
 * | DeviceNotSupportedError | not_supported | the device lacks the part asked for (`capability`): a Cyton has no motors |
 *
 * A motor fault is not an error: the motor reports state 4 and a `motor_fault` event, and moves
 * to it are ignored until a reset (docs/device.md §Motors).
 */
import { type ErrorDetails, HeadsetdError } from '../core/errors.js';
import type { AcquisitionOwner, DeviceCapability } from './headset.js';

/** What holds the device when it is busy: an acquisition (its owners) or a measurement (whose). */
export type DeviceHolder =
  | { readonly activity: 'eeg_acquisition'; readonly owners: readonly AcquisitionOwner[] }
  | { readonly activity: 'impedance_measurement'; readonly holder?: string };

/** The device is busy with the other of its two exclusive activities. */
export class DeviceBusyError extends HeadsetdError {
  readonly heldBy: DeviceHolder;

  constructor(message: string, heldBy: DeviceHolder) {
    super('device_busy', message, { heldBy });
    this.name = 'DeviceBusyError';
    this.heldBy = heldBy;
  }
}

/** An argument the device refuses: out of range, unknown, or of the wrong kind. */
export class DeviceArgumentError extends HeadsetdError {
  /** The argument at fault, as the device names it (`configuration/0/electrode`, `txnID`). */
  readonly field: string;
  /** The value refused, when there was one. */
  readonly value: unknown;
  /** The values allowed, when they are a short list. */
  readonly allowed: readonly unknown[] | undefined;

  /**
   * `details` are those of the answer (by default the field, value, allowed values and bounds);
   * the peripheral bus gives a JSON pointer (`path`) instead of `field`.
   */
  constructor(
    message: string,
    argument: { field: string; value?: unknown; allowed?: readonly unknown[]; min?: number; max?: number },
    details: ErrorDetails = { ...argument },
  ) {
    super('validation_failed', message, details);
    this.name = 'DeviceArgumentError';
    this.field = argument.field;
    this.value = argument.value;
    this.allowed = argument.allowed;
  }
}

/** Why the device cannot answer: closed by the service, lost (unplugged), or its recording cut short. */
export type UnavailableReason = 'closed' | 'disconnected' | 'recording_cut_short';

/** The device cannot serve the call now. */
export class DeviceUnavailableError extends HeadsetdError {
  readonly reason: UnavailableReason;

  constructor(reason: UnavailableReason, message: string) {
    super('device_unavailable', message);
    this.name = 'DeviceUnavailableError';
    this.reason = reason;
  }
}

/** A subscriber named channels the device does not acquire. */
export class ChannelsUnavailableError extends HeadsetdError {
  /** The channels asked for and not acquired (electrode names, upper-case). */
  readonly channels: readonly string[];
  /** The channels the device acquires. */
  readonly acquired: readonly string[];
  /** A pointer to the first missing channel in the request (`channels/2`). */
  readonly field: string;

  constructor(message: string, fault: { channels: string[]; acquired: string[]; field: string }) {
    super('channels_unavailable', message, { ...fault });
    this.name = 'ChannelsUnavailableError';
    this.channels = fault.channels;
    this.acquired = fault.acquired;
    this.field = fault.field;
  }
}

/** What each capability is called in a sentence (`has no motors`). */
const CAPABILITY_TEXT: Record<DeviceCapability, string> = {
  eeg: 'EEG front end',
  impedance: 'impedance measurement',
  motors: 'motors',
  leds: 'LEDs',
  imu: 'IMU',
  battery: 'battery it can read',
  peripheralBus: 'peripheral bus',
};

/**
 * The device lacks the part a call needs: a Cyton board has no motors, an LSL stream no impedance
 * meter. `device` names the device as a person would (`The Cyton board on /dev/ttyUSB0`); the
 * message says what is missing and what still works.
 */
export class DeviceNotSupportedError extends HeadsetdError {
  readonly device: string;
  readonly capability: DeviceCapability;

  constructor(device: string, capability: DeviceCapability, hint?: string) {
    super(
      'not_supported',
      `${device} has no ${CAPABILITY_TEXT[capability]}: ${hint ?? 'this path serves only devices that have it; GET /system/status lists what this device has (capabilities).'}`,
      { device, capability },
    );
    this.name = 'DeviceNotSupportedError';
    this.device = device;
    this.capability = capability;
  }
}
