import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HeadsetdError } from '../../core/errors.js';
import type { SimulatedHeadset } from './index.js';
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

describe('motor timing', () => {
  it('moves 30 steps in 1.5 s at 20 steps/s, reporting state 1 on the way and 0 at the end', async () => {
    const states = await headset.motors.move([{ electrode: 'O1', movement: 'RELEASE', displacement: 30 }]);
    expect(states).toEqual({ O1: 1 });
    await advance(750);
    expect(headset.motors.positions(['O1']).O1).toBeCloseTo(15, 3);
    await advance(740);
    expect(headset.motors.states(['O1']).O1).toBe(1);
    await advance(10);
    expect(headset.motors.states(['O1']).O1).toBe(0);
    expect(headset.motors.positions(['O1']).O1).toBe(30);
  });

  it('waitUntilComplete resolves when the move ends, not before', async () => {
    await headset.motors.move([{ electrode: 'cz', movement: 'release', displacement: 30 }]);
    let done = false;
    void headset.motors.waitUntilComplete(['CZ']).then(() => {
      done = true;
    });
    await advance(1400);
    expect(done).toBe(false);
    await advance(100);
    expect(done).toBe(true);
  });

  it('moves different electrodes in parallel', async () => {
    await headset.motors.move([
      { electrode: 'O1', movement: 'RELEASE', displacement: 30 },
      { electrode: 'O2', movement: 'RELEASE', displacement: 30 },
      { electrode: 'FP1', movement: 'RELEASE', displacement: 20 },
    ]);
    expect(headset.status().state).toBe('moving');
    await advance(1000);
    expect(headset.motors.states(['O1', 'O2', 'FP1'])).toEqual({ O1: 1, O2: 1, FP1: 0 });
    await advance(500);
    expect(headset.motors.positions(['O1', 'O2', 'FP1'])).toEqual({ O1: 30, O2: 30, FP1: 20 });
    expect(headset.status().state).toBe('idle');
  });

  it('replaces the move of a moving motor with a new command', async () => {
    await headset.motors.move([{ electrode: 'PZ', movement: 'RELEASE', displacement: 40 }]);
    await advance(500); // at 10 steps
    await headset.motors.move([{ electrode: 'PZ', movement: 'RETRACT', displacement: 5 }]);
    await advance(250); // 5 steps back at 20 steps/s
    expect(headset.motors.states(['PZ']).PZ).toBe(0);
    expect(headset.motors.positions(['PZ']).PZ).toBe(5);
    await advance(2000);
    expect(headset.motors.positions(['PZ']).PZ).toBe(5);
  });

  it('stops at the end stop when a move goes past it', async () => {
    await headset.motors.move([{ electrode: 'F3', movement: 'RELEASE', displacement: 5 }]);
    await advance(300);
    await headset.motors.move([{ electrode: 'F3', movement: 'RETRACT', displacement: 30 }]);
    await advance(250);
    expect(headset.motors.positions(['F3']).F3).toBe(0);
    expect(headset.motors.states(['F3']).F3).toBe(0);
  });

  it('STOP halts where the motor is; BRAKE holds (state 2) until a later move releases it', async () => {
    await headset.motors.move([
      { electrode: 'C3', movement: 'RELEASE', displacement: 40 },
      { electrode: 'C4', movement: 'RELEASE', displacement: 40 },
    ]);
    await advance(500);
    expect(
      await headset.motors.move([
        { electrode: 'C3', movement: 'STOP' },
        { electrode: 'C4', movement: 'BRAKE' },
      ]),
    ).toEqual({
      C3: 0,
      C4: 2,
    });
    await advance(1000);
    expect(headset.motors.positions(['C3', 'C4'])).toEqual({ C3: 10, C4: 10 });
    expect(headset.motors.states(['C4']).C4).toBe(2);
    await headset.motors.move([{ electrode: 'C4', movement: 'RETRACT', displacement: 4 }]);
    expect(headset.motors.states(['C4']).C4).toBe(1);
    await advance(200);
    expect(headset.motors.positions(['C4']).C4).toBe(6);
  });

  it('refuses the whole batch when one command is invalid, and moves nothing', async () => {
    const bad = [
      { electrode: 'O1', movement: 'RELEASE', displacement: 10 },
      { electrode: 'O2', movement: 'RELEASE', displacement: 0 },
    ];
    await expect(headset.motors.move(bad)).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(
      headset.motors.move([{ electrode: 'O1', movement: 'RELEASE', displacement: 101 }]),
    ).rejects.toBeInstanceOf(HeadsetdError);
    await expect(
      headset.motors.move([{ electrode: 'XX', movement: 'RELEASE', displacement: 1 }]),
    ).rejects.toThrow(/PZ, O1/);
    await expect(
      headset.motors.move([{ electrode: 'O1', movement: 'JUMP', displacement: 1 }]),
    ).rejects.toThrow(/RETRACT/);
    await expect(headset.motors.move([])).rejects.toMatchObject({ code: 'validation_failed' });
    expect(headset.motors.states(['O1']).O1).toBe(0);
    expect(headset.motors.positions(['O1']).O1).toBe(0);
  });

  it('reset MAX presses every electrode to its safe force and stalls there; reset MIN retracts all', async () => {
    const events = collectEvents(headset);
    const states = await headset.motors.reset('MAX');
    expect(Object.keys(states)).toHaveLength(21);
    expect(Object.values(states).every((s) => s === 1)).toBe(true);
    const done = headset.motors.waitUntilComplete();
    await advance(6000);
    await done;
    expect(Object.values(headset.motors.states()).every((s) => s === 3)).toBe(true);
    expect(events.filter((e) => e.type === 'system' && e.eventType === 'motor_stalled')).toHaveLength(21);
    await headset.motors.reset('min');
    await advance(6000);
    expect(Object.values(headset.motors.positions()).every((p) => p === 0)).toBe(true);
    expect(Object.values(headset.motors.states()).every((s) => s === 0)).toBe(true);
  });
});

describe('moves that outlast their time', () => {
  function timeouts(events: ReturnType<typeof collectEvents>) {
    return events.filter((e) => e.type === 'system' && e.eventType === 'motor_timeout');
  }

  it('a healthy move ends on time and never trips the watchdog', async () => {
    const events = collectEvents(headset);
    await headset.motors.move([{ electrode: 'O1', movement: 'RELEASE', displacement: 30 }]);
    await advance(10_000, 100);
    expect(headset.motors.states(['O1']).O1).toBe(0);
    expect(timeouts(events)).toEqual([]);
  });

  it('a slipping motor is stopped at its expected time × 1.25 + 0.5 s, in fault, with an event', async () => {
    const events = collectEvents(headset);
    headset.simulation.setMotorHealth('O1', 0.5);
    await headset.motors.move([{ electrode: 'O1', movement: 'RELEASE', displacement: 30 }]);
    const done = headset.motors.waitUntilComplete(['O1']);
    // 30 steps take 1.5 s; allowed 1.5 × 1.25 + 0.5 = 2.375 s; at half speed it would need 3 s.
    await advance(2370, 10);
    expect(headset.motors.states(['O1']).O1).toBe(1);
    expect(timeouts(events)).toEqual([]);
    await advance(10, 10);
    await done;
    expect(headset.motors.states(['O1']).O1).toBe(4);
    const position = headset.motors.positions(['O1']).O1 ?? 0;
    expect(position).toBeCloseTo(10 * 2.375, 3);
    await advance(2000);
    expect(headset.motors.positions(['O1']).O1).toBe(position);
    expect(timeouts(events)).toHaveLength(1);
    expect(timeouts(events)[0]).toMatchObject({
      level: 'error',
      message: expect.stringMatching(
        /Motor O1 did not reach 30.0 steps within 2.38 s.*stopped at 23.8 steps.*fault/,
      ),
    });
    // The fault holds until a reset re-initialises the axis.
    await headset.motors.move([{ electrode: 'O1', movement: 'RETRACT', displacement: 5 }]);
    expect(headset.motors.states(['O1']).O1).toBe(4);
    headset.simulation.setMotorHealth('O1', 1);
    await headset.motors.reset('MIN');
    await advance(2000);
    expect(headset.motors.states(['O1']).O1).toBe(0);
    expect(headset.motors.positions(['O1']).O1).toBe(0);
  });

  it('a jammed motor that never moves is stopped the same way', async () => {
    const events = collectEvents(headset);
    headset.simulation.setMotorHealth('F3', 0);
    await headset.motors.move([{ electrode: 'F3', movement: 'RELEASE', displacement: 4 }]);
    await advance(1000, 50);
    expect(headset.motors.states(['F3']).F3).toBe(4);
    expect(headset.motors.positions(['F3']).F3).toBe(0);
    expect(timeouts(events)).toHaveLength(1);
  });
});

describe('losing the device', () => {
  it('stops every moving motor where it is, reports it, and refuses moves until the device is back', async () => {
    const events = collectEvents(headset);
    await headset.motors.move([
      { electrode: 'C3', movement: 'RELEASE', displacement: 40 },
      { electrode: 'C4', movement: 'RELEASE', displacement: 40 },
    ]);
    await advance(500);
    headset.simulation.setConnected(false);
    expect(headset.motors.states(['C3', 'C4'])).toEqual({ C3: 0, C4: 0 });
    await advance(3000);
    expect(headset.motors.positions(['C3', 'C4'])).toEqual({ C3: 10, C4: 10 });
    const lost = events.filter((e) => e.type === 'system' && e.eventType === 'device_lost');
    expect(lost).toMatchObject([
      { level: 'error', message: expect.stringContaining('motors C3, C4 were stopped') },
    ]);
    await expect(
      headset.motors.move([{ electrode: 'C3', movement: 'RELEASE', displacement: 5 }]),
    ).rejects.toMatchObject({ code: 'device_unavailable' });
    await expect(headset.motors.reset('MAX')).rejects.toMatchObject({ code: 'device_unavailable' });
    headset.simulation.setConnected(true);
    expect(events.some((e) => e.type === 'system' && e.eventType === 'device_restored')).toBe(true);
    await headset.motors.move([{ electrode: 'C3', movement: 'RELEASE', displacement: 5 }]);
    expect(headset.motors.states(['C3']).C3).toBe(1);
  });

  it('stopAll stops every moving motor at once and names them', async () => {
    await headset.motors.move([
      { electrode: 'O1', movement: 'RELEASE', displacement: 40 },
      { electrode: 'FZ', movement: 'RELEASE', displacement: 40 },
    ]);
    await advance(100);
    expect(headset.motors.stopAll()).toEqual(['O1', 'FZ']);
    expect(headset.status().motors.moving).toEqual([]);
    expect(headset.motors.stopAll()).toEqual([]);
  });
});
