/**
 * The optimiser loop and the electrode jobs without HTTP: a simulated headset on a clock moved by
 * hand, so the motors, the contact's settling and the impedance meter run on device time.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { ELECTRODES, type Electrode } from '../core/electrodes.js';
import { MOTOR_MAX_POSITION } from '../device/headset.js';
import { JobRegistry } from '../platform/jobs/jobs.js';
import { ManualClock } from '../device/replay/manual-clock.js';
import { createSimulatedHeadset, type SimulatedHeadset } from '../device/simulated/index.js';
import { onDeviceTime } from '../../test/support/device-time.js';
import { startElectrodeJob } from './electrode-jobs.js';
import type { GuidesContext } from './context.js';
import { MotorLocks } from './motor-locks.js';
import { optimizeElectrodes } from './optimizer.js';
import { STRATEGIES } from './strategies.js';

let device: SimulatedHeadset | undefined;
afterEach(async () => {
  await device?.close();
  device = undefined;
});

function headset(): { device: SimulatedHeadset; clock: ManualClock } {
  const clock = new ManualClock();
  device = createSimulatedHeadset({ seed: 3, clock, initialMotorPosition: 0 });
  return { device, clock };
}

const TWO: Electrode[] = ['O1', 'CZ'];

describe('optimizeElectrodes', () => {
  test('brings retracted electrodes from air to under the target, reporting each round', async () => {
    const { device, clock } = headset();
    const rounds: number[] = [];
    const results = await onDeviceTime(
      clock,
      optimizeElectrodes(device, TWO, {
        targetKohms: 50,
        maxAttempts: 10,
        profile: STRATEGIES.research,
        onRound: (_results, done) => rounds.push(done.size),
      }),
    );
    for (const e of TWO) {
      const r = results.get(e);
      expect(r, e).toBeDefined();
      expect(r?.before).toBeGreaterThan(1000); // air: no contact at power-on
      expect(r?.reason).toBe('target_reached');
      expect(r?.after).toBeLessThanOrEqual(50);
      expect(r?.position).toBeGreaterThan(0);
      expect(r?.position).toBeLessThanOrEqual(MOTOR_MAX_POSITION);
      expect(device.motors.positions([e])[e]).toBe(r?.position);
    }
    expect(rounds.length).toBeGreaterThan(1);
    expect(rounds.at(-1)).toBe(TWO.length);
    // Electrodes not asked for never moved.
    const others = ELECTRODES.filter((e) => !TWO.includes(e));
    expect(Object.values(device.motors.positions(others)).every((p) => p === 0)).toBe(true);
  });

  test('an abort ends the loop with the signal’s reason', async () => {
    const { device, clock } = headset();
    const controller = new AbortController();
    const work = optimizeElectrodes(device, TWO, {
      targetKohms: 1,
      maxAttempts: 50,
      profile: STRATEGIES.gentle,
      signal: controller.signal,
      onRound: () => {
        controller.abort(new Error('cancelled by the test'));
      },
    });
    await expect(onDeviceTime(clock, work)).rejects.toThrow('cancelled by the test');
  });
});

describe('electrode jobs', () => {
  function context(device: SimulatedHeadset): GuidesContext {
    return {
      device,
      jobs: new JobRegistry({ now: () => device.clock.wallNow() }),
      locks: new MotorLocks(),
    } as unknown as GuidesContext;
  }

  test('a job holds its electrodes until it ends, reports progress per electrode, and settles with the result', async () => {
    const { device, clock } = headset();
    const guides = context(device);
    const job = startElectrodeJob(guides, {
      operation: 'electrodes.optimize',
      holder: 'optimize',
      electrodes: TWO,
      run: ({ signal, progress }) =>
        optimizeElectrodes(device, TWO, {
          targetKohms: 50,
          maxAttempts: 10,
          profile: STRATEGIES.research,
          signal,
          onRound: progress.onRound,
        }).then((results) => ({ electrodes: Object.fromEntries(results) })),
    });
    expect(job.record().status).toBe('running');
    expect(() => guides.locks.acquire(['O1'], 'another')).toThrow(/O1 is held by a running optimize/);
    const result = await onDeviceTime(clock, job.settled);
    expect(Object.keys(result.electrodes).sort()).toEqual(['CZ', 'O1']);
    const record = job.record();
    expect(record.status).toBe('completed');
    expect(record.progress).toMatchObject({ total: 2, completed: 2 });
    expect(guides.locks.isHeld('O1')).toBe(false);
  });
});
