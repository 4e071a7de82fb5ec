import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, json, type SystemApp, systemApp } from './support.js';

describe('LEDs and IMU under /system', () => {
  let s: SystemApp;
  beforeEach(async () => {
    s = await systemApp({ guides: false });
  });
  afterEach(async () => {
    await s.close();
  });

  it('reads the USER LED by default and the STATUS LED by index', async () => {
    const user = json(await s.app.inject({ method: 'GET', url: '/system/led/state' }));
    expect(user).toEqual({
      success: true,
      index: 'USER',
      color: '#000000',
      active: false,
      state: 'OFF',
      blinksPerSecond: 0,
    });
    const status = json(await s.app.inject({ method: 'GET', url: '/system/led/state?index=status' }));
    expect(status).toMatchObject({ index: 'STATUS', state: 'STATIC', active: true });
    const bad = await s.app.inject({ method: 'GET', url: '/system/led/state?index=POWER' });
    expect(bad.statusCode).toBe(422);
    expect(errorOf(bad).details?.path).toBe('/querystring/index');
  });

  it('sets an LED by form fields and by JSON', async () => {
    const res = await s.app.inject({
      method: 'PUT',
      url: '/system/led/state',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'color=%23f80&blinksPerSecond=2&index=USER',
    });
    expect(json(res)).toEqual({
      success: true,
      state: { color: '#FF8800', blinksPerSecond: 2, index: 'USER' },
    });
    const read = json(await s.app.inject({ method: 'GET', url: '/system/led/state' }));
    expect(read).toMatchObject({ state: 'BLINKING', color: '#FF8800' });
    const viaJson = await s.app.inject({
      method: 'PUT',
      url: '/system/led/state',
      payload: { color: '#00FF00', index: 'STATUS' },
    });
    expect(json(viaJson)).toMatchObject({ state: { color: '#00FF00', index: 'STATUS' } });
  });

  it('refuses bad colours, blink rates and fields with pointers', async () => {
    const cases: [object, number, string][] = [
      [{ color: 'red' }, 422, '/color'],
      [{ blinksPerSecond: 21 }, 422, '/blinksPerSecond'],
      [{ blinksPerSecond: 'fast' }, 400, '/blinksPerSecond'],
      [{ index: 'POWER' }, 422, '/index'],
      [{ brightness: 1 }, 400, '/brightness'],
    ];
    for (const [payload, status, pointer] of cases) {
      const res = await s.app.inject({ method: 'PUT', url: '/system/led/state', payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(status);
      expect(errorOf(res).details?.path).toBe(pointer);
    }
  });

  it('reads the primary IMU and nodes 0..3, and refuses other node indices', async () => {
    const primary = json(await s.app.inject({ method: 'GET', url: '/system/sensors/imu/primary' }));
    expect(Object.keys(primary).sort()).toEqual(['pitch', 'pos_x', 'pos_y', 'pos_z', 'roll', 'yaw']);
    for (const index of [0, 3]) {
      const node = await s.app.inject({ method: 'GET', url: `/system/sensors/imu?nodeIndex=${index}` });
      expect(node.statusCode).toBe(200);
      expect(typeof json(node).roll).toBe('number');
    }
    for (const index of ['4', '-1', '1.5', 'x']) {
      const res = await s.app.inject({ method: 'GET', url: `/system/sensors/imu?nodeIndex=${index}` });
      expect(res.statusCode, index).toBe(422);
      expect(errorOf(res)).toMatchObject({
        code: 'validation_failed',
        details: { path: '/querystring/nodeIndex' },
      });
    }
  });
});
