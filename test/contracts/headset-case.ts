/** The shape of the Headset contract's cases and what each is handed. */
import type { Frame } from '../../src/core/frame.js';
import { hasPart } from '../../src/device/capabilities.js';
import type { DeviceCapability, Headset } from '../../src/device/headset.js';
import type { ManualClock } from '../../src/device/replay/manual-clock.js';

/** The parts of a Headset whose members the cases cover one by one (`eeg.start`, `leds.set`). */
export const HEADSET_PARTS = [
  'eeg',
  'impedance',
  'motors',
  'leds',
  'imu',
  'power',
  'thermal',
  'bus',
] as const;

export interface HeadsetCaseContext {
  device: Headset;
  /** The clock the device was built on, moved by hand. */
  clock: ManualClock;
  /** Every frame the device sent since it was built. */
  frames: Frame[];
}

export interface HeadsetCase {
  title: string;
  /** The members the case uses and checks: `onEvent`, `clock`, or a part's member as `eeg.start`. */
  covers: readonly string[];
  /**
   * The parts the case needs (a capability, or the thermal model): on a device without one of them
   * the case does not apply (that a missing part is absent and refused with not_supported is a case
   * of its own).
   */
  needs?: readonly (DeviceCapability | 'thermal')[];
  run(context: HeadsetCaseContext): Promise<void>;
}

/** The parts of `needs` the device lacks. */
export function lackingParts(device: Headset, needs: HeadsetCase['needs'] = []): string[] {
  return needs.filter((part) => (part === 'thermal' ? device.thermal === undefined : !hasPart(device, part)));
}

/** The rows of a list of frames, per channel. */
export function rowsOf(frames: readonly Frame[]): number {
  return frames.reduce((n, f) => n + f.data.length / f.channels.length, 0);
}
