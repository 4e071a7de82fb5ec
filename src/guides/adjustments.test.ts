/**
 * Optimize and adjust as the guide routes run them, without HTTP: a simulated headset on a clock
 * moved by hand, so the motors and the impedance meter run on device time.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { onDeviceTime } from '../../test/support/device-time.js';
import type { Electrode } from '../core/electrodes.js';
import { ManualClock } from '../device/replay/manual-clock.js';
import { createSimulatedHeadset, type SimulatedHeadset } from '../device/simulated/index.js';
import { adjustElectrodes, optimizeInOrder } from './adjustments.js';
import { STRATEGIES } from './strategies.js';

let device: SimulatedHeadset | undefined;
afterEach(async () => {
  await device?.close();
  device = undefined;
});

function headset(initialMotorPosition: 'scalp' | number): { device: SimulatedHeadset; clock: ManualClock } {
  const clock = new ManualClock();
  device = createSimulatedHeadset({ seed: 3, clock, initialMotorPosition });
  return { device, clock };
}

const options = { targetKohms: 50, maxAttempts: 10, profile: STRATEGIES.research };

describe('optimizeInOrder', () => {
  test('priority electrodes are optimized first and alone; the answer follows the headset order', async () => {
    const { device, clock } = headset(0);
    const seen: Electrode[][] = [];
    const results = await onDeviceTime(
      clock,
      optimizeInOrder(device, ['O1'], ['CZ', 'O1', 'FP1'], {
        ...options,
        onRound: (round) => seen.push([...round.keys()]),
      }),
    );
    expect(seen[0]).toEqual(['O1']);
    expect(seen.at(-1)?.sort()).toEqual(['CZ', 'FP1']);
    expect([...results.keys()]).toEqual(['O1', 'CZ', 'FP1']);
    for (const r of results.values()) expect(r.reason).toBe('target_reached');
  });
});

describe('adjustElectrodes', () => {
  test('reseat lifts and seats again, reporting as before the value measured before the lift', async () => {
    const { device, clock } = headset('scalp');
    const results = await onDeviceTime(clock, adjustElectrodes(device, ['O1'], 'reseat', options));
    const o1 = results.get('O1');
    expect(o1?.before).toBeLessThan(1000); // on the scalp, not the air reading after the lift
    expect(o1?.position).toBeGreaterThan(0);
  });

  test('decrease_pressure relieves and increase_pressure presses, each answering every electrode', async () => {
    const { device, clock } = headset('scalp');
    const relieved = await onDeviceTime(
      clock,
      adjustElectrodes(device, ['O1', 'CZ'], 'decrease_pressure', options),
    );
    expect([...relieved.keys()].sort()).toEqual(['CZ', 'O1']);
    const pressed = await onDeviceTime(clock, adjustElectrodes(device, ['O1'], 'increase_pressure', options));
    expect([...pressed.keys()]).toEqual(['O1']);
  });
});
