import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ELECTRODES } from '../../core/electrodes.js';
import { FORCE_LIMIT, type SimulatedHeadset } from './index.js';
import { DeviceBusyError } from '../errors.js';
import { advance, collectEvents, fakeTimeHeadset } from '../../../test/support/device.js';

let headset: SimulatedHeadset;

beforeEach(() => {
  vi.useFakeTimers();
  headset = fakeTimeHeadset();
});

afterEach(async () => {
  await headset.close();
  vi.useRealTimers();
});

/** Measures while advancing fake time, as a caller waiting on the device would. */
async function measure(names?: string[]): Promise<Record<string, number>> {
  const pending = headset.impedance.measure(names);
  await advance(400, 50);
  return await pending;
}

async function moveTo(electrode: string, position: number): Promise<void> {
  const current = headset.motors.positions([electrode])[electrode as 'O1'] ?? 0;
  const delta = position - current;
  if (delta === 0) return;
  await headset.motors.move([
    { electrode, movement: delta > 0 ? 'RELEASE' : 'RETRACT', displacement: Math.abs(delta) },
  ]);
  await advance(Math.ceil((Math.abs(delta) / 20) * 1000) + 50, 100);
}

describe('electrode contact', () => {
  it('places each contact between 50 and 75 steps, seeded', () => {
    const positions = ELECTRODES.map((e) => headset.simulation.contactPosition(e));
    expect(Math.min(...positions)).toBeGreaterThanOrEqual(50);
    expect(Math.max(...positions)).toBeLessThanOrEqual(75);
    expect(new Set(positions).size).toBeGreaterThan(10);
  });

  it('reads MΩ when retracted, under 20 kΩ once released onto the scalp, MΩ again when retracted', async () => {
    const before = await measure(['O1']);
    expect(before.O1).toBeGreaterThan(1_000_000);
    const contact = headset.simulation.contactPosition('O1');
    await moveTo('O1', contact + 12);
    const on = await measure(['O1']);
    expect(on.O1).toBeLessThan(20_000);
    expect(on.O1).toBeGreaterThan(1_000);
    await moveTo('O1', contact - 10);
    const off = await measure(['O1']);
    expect(off.O1).toBeGreaterThan(1_000_000);
  });

  it('lowers impedance the further the electrode presses', async () => {
    const contact = headset.simulation.contactPosition('CZ');
    const readings: number[] = [];
    for (const depth of [1, 4, 8, 12]) {
      await moveTo('CZ', contact + depth);
      readings.push(headset.simulation.trueImpedance('CZ'));
    }
    expect(readings[0]).toBeGreaterThan(200_000);
    for (let i = 1; i < readings.length; i++) expect(readings[i]).toBeLessThan(readings[i - 1]!);
  });

  it('settles toward a floor of a few kΩ over minutes on the scalp', async () => {
    const contact = headset.simulation.contactPosition('PZ');
    await moveTo('PZ', contact + 18);
    const fresh = headset.simulation.trueImpedance('PZ');
    await advance(10 * 60_000, 10_000);
    const settled = headset.simulation.trueImpedance('PZ');
    expect(fresh).toBeGreaterThan(8_000);
    expect(settled).toBeLessThan(fresh * 0.6);
    expect(settled).toBeGreaterThan(1_500);
    expect(settled).toBeLessThan(6_000);
  });

  it('stalls (state 3) at the safe force limit with a motor_stalled event naming the electrode', async () => {
    const events = collectEvents(headset);
    await headset.motors.move([{ electrode: 'FP2', movement: 'RELEASE', displacement: 100 }]);
    await advance(6000);
    expect(headset.motors.states(['FP2']).FP2).toBe(3);
    expect(headset.motors.positions(['FP2']).FP2).toBeCloseTo(headset.simulation.stallPosition('FP2'), 3);
    expect(headset.simulation.force('FP2')).toBeCloseTo(FORCE_LIMIT, 6);
    const stalls = events.filter((e) => e.type === 'system' && e.eventType === 'motor_stalled');
    expect(stalls).toHaveLength(1);
    expect(stalls[0]).toMatchObject({ level: 'warning', message: expect.stringContaining('FP2') });
    // Pressing further stalls at once; retracting moves away.
    expect(await headset.motors.move([{ electrode: 'FP2', movement: 'RELEASE', displacement: 5 }])).toEqual({
      FP2: 3,
    });
    expect(await headset.motors.move([{ electrode: 'FP2', movement: 'RETRACT', displacement: 5 }])).toEqual({
      FP2: 1,
    });
  });
});

describe('impedance measurement', () => {
  it('measures one electrode or all 21 in the same 80 ms (lead-off on every channel at once)', async () => {
    expect(headset.impedance.measurementMs()).toBe(80);
    let one: unknown;
    void headset.impedance.measure(['O1']).then((v) => {
      one = v;
    });
    await vi.advanceTimersByTimeAsync(75);
    expect(one).toBeUndefined();
    expect(headset.status().state).toBe('measuring_impedance');
    await vi.advanceTimersByTimeAsync(5);
    expect(Object.keys(one as object)).toEqual(['O1']);

    let all: Record<string, number> | undefined;
    void headset.impedance.measure().then((v) => {
      all = v;
    });
    await vi.advanceTimersByTimeAsync(75);
    expect(all).toBeUndefined();
    await vi.advanceTimersByTimeAsync(5);
    expect(Object.keys(all ?? {})).toEqual([...ELECTRODES]);
  });

  it('frees the meter the moment a measurement is aborted, running or queued', async () => {
    const running = new AbortController();
    const queued = new AbortController();
    const first = headset.impedance.measure(['O1'], { signal: running.signal });
    const second = headset.impedance.measure(['O2'], { signal: queued.signal });
    const third = headset.impedance.measure(['P3']);
    await vi.advanceTimersByTimeAsync(40);
    queued.abort(new Error('not wanted'));
    await expect(second).rejects.toThrow('not wanted');
    running.abort();
    await expect(first).rejects.toThrow();
    // The third measurement starts when the running one is aborted and takes its full time.
    let thirdValues: unknown;
    void third.then((v) => {
      thirdValues = v;
    });
    await vi.advanceTimersByTimeAsync(79);
    expect(thirdValues).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(Object.keys(thirdValues as object)).toEqual(['P3']);
    expect(headset.impedance.measuring()).toBe(false);
    // An acquisition asked for right after an abort starts.
    const fourth = new AbortController();
    const pending = headset.impedance.measure(['O1'], { signal: fourth.signal });
    fourth.abort();
    await expect(pending).rejects.toThrow();
    await expect(headset.eeg.start('client')).resolves.toMatchObject({ streaming: true });
  });

  it('adds a little measurement noise around the contact model', async () => {
    await moveTo('O2', headset.simulation.contactPosition('O2') + 10);
    const truth = headset.simulation.trueImpedance('O2');
    const values: number[] = [];
    for (let i = 0; i < 20; i++) values.push((await measure(['O2'])).O2!);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    expect(Math.abs(mean - truth) / truth).toBeLessThan(0.03);
    expect(new Set(values).size).toBeGreaterThan(1);
  });

  it('emits an impedance event in kΩ', async () => {
    const events = collectEvents(headset);
    const values = await measure(['T3', 'T4']);
    const event = events.find((e) => e.type === 'impedance');
    expect(event).toBeDefined();
    if (event?.type !== 'impedance') return;
    expect(event.data.T3).toBeCloseTo(values.T3! / 1000, 1);
  });

  it('refuses unknown electrodes and empty lists', async () => {
    await expect(headset.impedance.measure(['O1', 'Q9'])).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(headset.impedance.measure([])).rejects.toMatchObject({ code: 'validation_failed' });
  });
});

describe('acquisition and impedance are exclusive', () => {
  it('answers device_busy to a measurement during acquisition', async () => {
    await headset.eeg.start('client');
    // The typed device error; its HTTP status (409) is the API's concern (platform/http/statuses.ts).
    await expect(headset.impedance.measure(['O1'])).rejects.toBeInstanceOf(DeviceBusyError);
    await expect(headset.impedance.measure(['O1'])).rejects.toMatchObject({ code: 'device_busy' });
    await headset.eeg.stop('client');
    await expect(measure(['O1'])).resolves.toHaveProperty('O1');
  });

  it('answers device_busy to an acquisition start during a measurement, and starts after it', async () => {
    const pending = headset.impedance.measure();
    await expect(headset.eeg.start('client')).rejects.toMatchObject({ code: 'device_busy' });
    await expect(headset.eeg.start('streams')).rejects.toMatchObject({ code: 'device_busy' });
    await advance(400, 50);
    await pending;
    await expect(headset.eeg.start('client')).resolves.toMatchObject({ streaming: true });
  });
});

describe('power-on positions', () => {
  it("'scalp' starts every electrode on the scalp, under 30 kΩ, idle", async () => {
    const onScalp = fakeTimeHeadset({ initialMotorPosition: 'scalp' });
    for (const electrode of ELECTRODES) {
      expect(onScalp.simulation.trueImpedance(electrode)).toBeLessThan(30_000);
      expect(onScalp.motors.states([electrode])[electrode]).toBe(0);
    }
    await onScalp.close();
  });

  it('starts stalled at the safe force when asked to start past it', async () => {
    const pressed = fakeTimeHeadset({ initialMotorPosition: 100 });
    expect(Object.values(pressed.motors.states()).every((s) => s === 3)).toBe(true);
    expect(pressed.simulation.force('O1')).toBeCloseTo(FORCE_LIMIT, 6);
    await pressed.close();
    expect(() => fakeTimeHeadset({ initialMotorPosition: 101 })).toThrow(/initialMotorPosition/);
  });
});

describe('the stall position', () => {
  it('is where the force reaches the limit and never passes it, rounding included', async () => {
    const { ContactModel, FORCE_PER_STEP } = await import('./contact.js');
    const { Random } = await import('./random.js');
    for (let seed = 1; seed <= 200; seed++) {
      const contact = new ContactModel(new Random(seed, 'contact'), 0);
      for (const e of ELECTRODES) {
        const stall = contact.stallPosition(e);
        expect(contact.force(e, stall)).toBeLessThanOrEqual(FORCE_LIMIT);
        // And not short of it by more than a rounding error.
        expect(contact.force(e, stall + 1e-9)).toBeGreaterThan(FORCE_LIMIT - 1e-9 * FORCE_PER_STEP * 2);
      }
    }
  });
});
