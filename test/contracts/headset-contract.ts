/**
 * What every Headset must do, as the services and an app rely on it: one list of cases, run whole
 * against the simulated headset, the replay device and the live headset (on a fake amplifier), on a clock moved by hand so that device
 * time is exact and nothing sleeps. Every part of the interface is covered (EEG, impedance,
 * motors, LEDs, IMU, power, thermal model, peripheral bus, events, status, identity, close): each
 * case names the members it covers and is checked to use them (recorded-calls.ts), and
 * contract-coverage.test.ts checks that the cases together cover every member of Headset. A case
 * that needs a part the device lacks (`needs`) does not apply to it; instead each missing part must
 * be absent, and asking for it refused with DeviceNotSupportedError (headset-cases-capabilities.ts).
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { Frame } from '../../src/core/frame.js';
import type { Headset } from '../../src/device/headset.js';
import { ManualClock } from '../../src/device/replay/manual-clock.js';
import { HEADSET_PARTS, type HeadsetCase, lackingParts } from './headset-case.js';
import { DEVICE_CASES } from './headset-cases-device.js';
import { EEG_CASES } from './headset-cases-eeg.js';
import { CAPABILITY_CASES } from './headset-cases-capabilities.js';
import { PART_CASES } from './headset-cases-parts.js';
import { recordCalls } from './recorded-calls.js';

export type { HeadsetCase } from './headset-case.js';

/** Every case of the contract, in the order they run. */
export const HEADSET_CASES: readonly HeadsetCase[] = [
  ...EEG_CASES,
  ...PART_CASES,
  ...DEVICE_CASES,
  ...CAPABILITY_CASES,
];

export function headsetContract(
  name: string,
  make: (clock: ManualClock) => Headset | Promise<Headset>,
): void {
  describe(`Headset contract: ${name}`, () => {
    let device: Headset | undefined;
    afterEach(async () => {
      await device?.close();
      device = undefined;
    });

    for (const contractCase of HEADSET_CASES) {
      test(contractCase.title, async () => {
        const clock = new ManualClock(Date.UTC(2026, 0, 1));
        device = await make(clock);
        if (lackingParts(device, contractCase.needs).length > 0) return;
        const recorded = recordCalls(device, HEADSET_PARTS);
        const frames: Frame[] = [];
        recorded.subject.eeg.onFrame((frame) => frames.push(frame));
        await contractCase.run({ device: recorded.subject, clock, frames });
        expect(contractCase.covers.filter((m) => !recorded.used.has(m))).toEqual([]);
      });
    }
  });
}
