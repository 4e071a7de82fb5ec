/**
 * GET /system/clock: the frames' wall clock and the LSL clock (CLOCK_MONOTONIC, s) at one instant,
 * and the offset that maps one onto the other. That liblsl's own local_clock() reads the same
 * clock is proven with real liblsl in test/lsl/liblsl-inlets.test.ts.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { lslNow, wallNowMs } from '../../../src/lsl/clock.js';
import { json, type SystemApp, systemApp } from './support.js';

interface Clock {
  success: boolean;
  unixMs: number;
  monotonicS: number;
  offsetMs: number;
}

let s: SystemApp;
beforeEach(async () => {
  s = await systemApp({ guides: false });
});
afterEach(async () => {
  await s.close();
});

it('answers both clocks read at one instant and their fixed offset', async () => {
  const beforeWall = wallNowMs();
  const beforeMono = lslNow();
  const first = json(await s.app.inject({ method: 'GET', url: '/system/clock' })) as unknown as Clock;
  const afterMono = lslNow();
  const afterWall = wallNowMs();
  expect(first.success).toBe(true);
  expect(first.monotonicS).toBeGreaterThanOrEqual(beforeMono);
  expect(first.monotonicS).toBeLessThanOrEqual(afterMono);
  expect(first.unixMs).toBeGreaterThanOrEqual(beforeWall - 0.01);
  expect(first.unixMs).toBeLessThanOrEqual(afterWall + 0.01);
  expect(first.unixMs - first.monotonicS * 1000).toBeCloseTo(first.offsetMs, 3);
  // The wall clock of frames is the monotonic clock plus the offset: read between two monotonic
  // readings, it lies between their wall times. (Date.now() is not compared: the system's wall
  // clock may be slewed or stepped while the service runs; the frames' clock is not.)
  const monoBefore = lslNow();
  const frameClock = wallNowMs();
  const monoAfter = lslNow();
  expect(frameClock).toBeGreaterThanOrEqual(monoBefore * 1000 + first.offsetMs - 0.1);
  expect(frameClock).toBeLessThanOrEqual(monoAfter * 1000 + first.offsetMs + 0.1);
  const second = json(await s.app.inject({ method: 'GET', url: '/system/clock' })) as unknown as Clock;
  expect(second.offsetMs).toBe(first.offsetMs);
  expect(second.monotonicS).toBeGreaterThan(first.monotonicS);
});
