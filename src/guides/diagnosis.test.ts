/**
 * Diagnosis and preparation without HTTP: a simulated headset on a clock moved by hand, the latest
 * impedance following its hub, as the guide routes use them.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { onDeviceTime } from '../../test/support/device-time.js';
import { DEFAULT_DEVICE_CONFIG } from '../device/settings/config.js';
import { ManualClock } from '../device/replay/manual-clock.js';
import { createSimulatedHeadset, type SimulatedHeadset } from '../device/simulated/index.js';
import { EventHub } from '../events/hub.js';
import { diagnoseElectrode } from './diagnosis.js';
import { ElectrodeProgressTracker } from './electrode-jobs.js';
import { LatestImpedance } from './latest-impedance.js';
import { prepareElectrodes } from './preparation.js';

let device: SimulatedHeadset | undefined;
let latest: LatestImpedance | undefined;
afterEach(async () => {
  latest?.close();
  await device?.close();
  device = undefined;
});

function context(initialMotorPosition: 'scalp' | number) {
  const clock = new ManualClock();
  device = createSimulatedHeadset({ seed: 3, clock, initialMotorPosition });
  latest = new LatestImpedance(new EventHub(device));
  return { clock, context: { device, latest, config: () => DEFAULT_DEVICE_CONFIG } };
}

const VERDICTS = ['ok', 'noisy', 'poor_contact', 'no_contact', 'motor_fault'];

describe('diagnoseElectrode', () => {
  test('basic: the motor, a measured impedance and a verdict with advice; no signal figures', async () => {
    const { clock, context: c } = context('scalp');
    const diagnosis = await onDeviceTime(clock, diagnoseElectrode(c, 'FP1', 'basic'));
    expect(diagnosis.electrode).toBe('Fp1');
    expect(diagnosis.diagnosticLevel).toBe('basic');
    expect(diagnosis.impedance).toBeTypeOf('number');
    expect(diagnosis.noiseRms).toBeNull();
    expect(diagnosis.lineNoise).toBeNull();
    expect(VERDICTS).toContain(diagnosis.verdict);
    expect(diagnosis.advice.length).toBeGreaterThan(0);
    expect(diagnosis.motor.position).toBe(device?.motors.positions(['FP1']).FP1);
  });

  test('while EEG is acquired nothing is measured: no impedance known answers null', async () => {
    const { clock, context: c } = context('scalp');
    await device?.eeg.start('client');
    const diagnosis = await onDeviceTime(clock, diagnoseElectrode(c, 'O1', 'basic'));
    expect(diagnosis.impedance).toBeNull();
    expect(VERDICTS).toContain(diagnosis.verdict);
  });

  test('full: about a second of the channel gives its noise and mains figures', async () => {
    const { clock, context: c } = context('scalp');
    const diagnosis = await onDeviceTime(clock, diagnoseElectrode(c, 'O1', 'full'));
    expect(diagnosis.noiseRms).toBeTypeOf('number');
    expect(diagnosis.lineNoise).toBeTypeOf('number');
  });
});

describe('prepareElectrodes', () => {
  test('retract moves the electrodes back and answers their positions in the mixed case', async () => {
    const { clock, context: c } = context('scalp');
    const before = c.device.motors.positions(['FP1']).FP1 ?? 0;
    const progress = new ElectrodeProgressTracker(c.device, ['FP1'], () => undefined);
    const answer = await onDeviceTime(
      clock,
      prepareElectrodes(c.device, ['FP1'], 'retract', 10, { signal: new AbortController().signal, progress }),
    );
    expect(answer.action).toBe('retract');
    expect(answer.electrodes.Fp1?.position).toBeLessThan(before);
    expect(answer.electrodes.Fp1?.impedance).toBeUndefined();
  });

  test('seat brings retracted electrodes onto the scalp and answers their impedance in kΩ', async () => {
    const { clock, context: c } = context(0);
    const progress = new ElectrodeProgressTracker(c.device, ['O1', 'CZ'], () => undefined);
    const answer = await onDeviceTime(
      clock,
      prepareElectrodes(c.device, ['O1', 'CZ'], 'seat', undefined, {
        signal: new AbortController().signal,
        progress,
      }),
    );
    expect(Object.keys(answer.electrodes).sort()).toEqual(['Cz', 'O1']);
    expect(answer.electrodes.O1?.position).toBeGreaterThan(0);
    expect(answer.electrodes.Cz?.impedance).toBeTypeOf('number');
  });
});
