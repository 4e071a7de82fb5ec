import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scaledClock } from '../../support/scaled-clock.js';
import { ELECTRODES } from '../../../src/core/electrodes.js';
import { errorOf, json, type SystemApp, systemApp } from './support.js';

describe('impedance and motors under /system', () => {
  let s: SystemApp;
  beforeEach(async () => {
    s = await systemApp({ guides: false, device: { clock: scaledClock(10) } });
  });
  afterEach(async () => {
    await s.close();
  });

  it('measures the named channels in ohms as a bare upper-case map', async () => {
    const res = await s.app.inject({
      method: 'GET',
      url: '/system/sensors/impedance?channels=fp1&channels=Cz,O2',
    });
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(Object.keys(body)).toEqual(['FP1', 'CZ', 'O2']);
    // Retracted electrodes see air: MΩ.
    for (const value of Object.values(body)) expect(value).toBeGreaterThan(1_000_000);
  });

  it('measures all 21', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/system/sensors/impedance/all' });
    expect(Object.keys(json(res))).toEqual([...ELECTRODES]);
  });

  it('refuses an unknown channel naming the valid ones', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/system/sensors/impedance?channels=Q9' });
    expect(res.statusCode).toBe(422);
    expect(errorOf(res)).toMatchObject({
      code: 'validation_failed',
      details: { path: '/querystring/channels' },
    });
    expect(errorOf(res).message).toContain('FP1, FP2, FZ');
  });

  it('answers 409 device_busy while EEG is acquired', async () => {
    await s.app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' });
    const res = await s.app.inject({ method: 'GET', url: '/system/sensors/impedance/all' });
    expect(res.statusCode).toBe(409);
    expect(errorOf(res).code).toBe('device_busy');
    const some = await s.app.inject({ method: 'GET', url: '/system/sensors/impedance?channels=O1' });
    expect(some.statusCode).toBe(409);
  });

  it('reads positions and states for the electrodes asked', async () => {
    const pos = await s.app.inject({ method: 'GET', url: '/system/motors/position?electrode=Pz,o1' });
    expect(json(pos)).toEqual({ PZ: 0, O1: 0 });
    const state = await s.app.inject({ method: 'GET', url: '/system/motors/state' });
    expect(Object.keys(json(state))).toHaveLength(21);
    const bad = await s.app.inject({ method: 'GET', url: '/system/motors/state?electrode=Z9' });
    expect(bad.statusCode).toBe(422);
    expect(errorOf(bad).details?.path).toBe('/querystring/electrode');
  });

  it('answers state codes right after a move, then the final position with getFinalPosition', async () => {
    const moving = await s.app.inject({
      method: 'POST',
      url: '/system/motors/position',
      payload: { configuration: [{ electrode: 'fz', movement: 'release', displacement: 5 }] },
    });
    expect(json(moving)).toEqual({ FZ: 1 });
    // A new command to a moving motor replaces its move: let this one end first.
    await s.device.motors.waitUntilComplete(['FZ']);
    const final = await s.app.inject({
      method: 'POST',
      url: '/system/motors/position?getFinalPosition=TRUE',
      payload: { configuration: [{ electrode: 'FZ', movement: 'RELEASE', displacement: 5 }] },
    });
    expect(json(final)).toEqual({ FZ: 10 });
  });

  it('waits for a 30-step move with waitUntilComplete (about 1.5 s) and answers final state codes', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/system/motors/position?waitUntilComplete=1',
      payload: {
        configuration: [
          { electrode: 'C3', movement: 'RELEASE', displacement: 30 },
          { electrode: 'C4', movement: 'RELEASE', displacement: 30 },
        ],
      },
    });
    // Answered only once both moves ended: idle, and already at the final position.
    expect(json(res)).toEqual({ C3: 0, C4: 0 });
    expect(s.device.motors.positions(['C3', 'C4'])).toEqual({ C3: 30, C4: 30 });
  });

  it('refuses bad moves with a pointer into the configuration', async () => {
    const cases: [unknown, number, string][] = [
      [
        { configuration: [{ electrode: 'XX', movement: 'RELEASE', displacement: 1 }] },
        422,
        '/configuration/0/electrode',
      ],
      [
        { configuration: [{ electrode: 'O1', movement: 'PUSH', displacement: 1 }] },
        422,
        '/configuration/0/movement',
      ],
      [
        { configuration: [{ electrode: 'O1', movement: 'RELEASE', displacement: 0 }] },
        422,
        '/configuration/0/displacement',
      ],
      [
        { configuration: [{ electrode: 'O1', movement: 'RELEASE', displacement: 101 }] },
        422,
        '/configuration/0/displacement',
      ],
      [
        { configuration: [{ electrode: 'O1', movement: 'RELEASE', displacement: '5' }] },
        400,
        '/configuration/0/displacement',
      ],
      [
        { configuration: [{ electrode: 'O1', movement: 'RELEASE', displacement: 5, speed: 1 }] },
        400,
        '/configuration/0/speed',
      ],
      [{ configuration: [] }, 422, '/configuration'],
      [{}, 400, '/configuration'],
    ];
    for (const [payload, status, pointer] of cases) {
      const res = await s.app.inject({
        method: 'POST',
        url: '/system/motors/position',
        payload: payload as object,
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(status);
      expect(errorOf(res).details?.path, JSON.stringify(payload)).toBe(pointer);
    }
    const flag = await s.app.inject({
      method: 'POST',
      url: '/system/motors/position?waitUntilComplete=maybe',
      payload: { configuration: [{ electrode: 'O1', movement: 'STOP' }] },
    });
    expect(flag.statusCode).toBe(422);
    expect(errorOf(flag).details?.path).toBe('/querystring/waitUntilComplete');
  });

  it('resets all motors to MAX and MIN', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/system/motors/position/reset',
      payload: { position: 'MIN' },
    });
    expect(Object.keys(json(res))).toEqual([...ELECTRODES]);
    const bad = await s.app.inject({
      method: 'POST',
      url: '/system/motors/position/reset',
      payload: { position: 'MID' },
    });
    expect(bad.statusCode).toBe(422);
    expect(errorOf(bad).details?.path).toBe('/position');
  });

  it('shows the contact effect: released onto the scalp the impedance drops below 20 kΩ; retracted it rises', async () => {
    // CONTACT_POSITION_RANGE is 50..75 steps: 80 reaches every electrode's scalp (the motor stalls if it presses too hard).
    await s.app.inject({
      method: 'POST',
      url: '/system/motors/position?waitUntilComplete=true',
      payload: { configuration: [{ electrode: 'O1', movement: 'RELEASE', displacement: 82 }] },
    });
    const onScalp = json(await s.app.inject({ method: 'GET', url: '/system/sensors/impedance?channels=O1' }));
    expect(onScalp.O1).toBeLessThan(20_000);
    await s.app.inject({
      method: 'POST',
      url: '/system/motors/position?waitUntilComplete=true',
      payload: { configuration: [{ electrode: 'O1', movement: 'RETRACT', displacement: 40 }] },
    });
    const off = json(await s.app.inject({ method: 'GET', url: '/system/sensors/impedance?channels=O1' }));
    expect(off.O1).toBeGreaterThan(1_000_000);
  }, 15_000);
});
