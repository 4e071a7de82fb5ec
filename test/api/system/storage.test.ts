/**
 * The store failing under the /system writes (hostname, configuration): each is answered
 * 503 storage_error (507 storage_full when there is no room: test/api/streams-storage.test.ts) and
 * changes nothing, neither the stored value nor the device; once the store takes writes again the
 * same request succeeds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, json, type SystemApp, systemApp } from './support.js';

let s: SystemApp;
beforeEach(async () => {
  s = await systemApp();
});
afterEach(async () => {
  await s.close();
});

/** The store refuses every write (as on a file system remounted read-only). */
function breakStore(): () => void {
  s.db.pragma('query_only = ON');
  return () => {
    s.db.pragma('query_only = OFF');
  };
}

describe('system writes on a store that cannot be written', () => {
  it('PATCH /system/config is 503 storage_error and the device keeps its configuration (it was applied, then not stored)', async () => {
    const before = s.device.power.lowBatteryThreshold();
    const repair = breakStore();
    const patch = { method: 'PATCH', url: '/system/config', payload: { lowBatteryThreshold: 42 } } as const;
    const answer = await s.app.inject(patch);
    expect(answer.statusCode).toBe(503);
    expect(errorOf(answer)).toMatchObject({ code: 'storage_error', details: { reason: 'SQLITE_READONLY' } });
    expect(errorOf(answer).message).toMatch(/configuration was not saved and nothing changed/);
    expect(s.device.power.lowBatteryThreshold()).toBe(before);
    expect(json(await s.app.inject({ method: 'GET', url: '/system/config' }))).toMatchObject({
      config: { lowBatteryThreshold: before },
    });
    repair();
    expect((await s.app.inject(patch)).statusCode).toBe(200);
    expect(s.device.power.lowBatteryThreshold()).toBe(42);
  });

  it('PATCH /system/hostname is 503 storage_error and the name stays', async () => {
    const before = json(await s.app.inject({ method: 'GET', url: '/system/hostname' })).hostname;
    const repair = breakStore();
    const patch = { method: 'PATCH', url: '/system/hostname', payload: { hostname: 'lab-2' } } as const;
    const answer = await s.app.inject(patch);
    expect(answer.statusCode).toBe(503);
    expect(errorOf(answer).code).toBe('storage_error');
    expect(json(await s.app.inject({ method: 'GET', url: '/system/hostname' })).hostname).toBe(before);
    repair();
    expect(json(await s.app.inject(patch))).toEqual({ success: true, hostname: 'lab-2' });
  });
});
