/**
 * A device clock running `factor` times faster than real time, for tests of slow physical
 * operations (motors travelling, contact settling, impedance measurements): the simulated
 * headset behaves exactly as on the real clock in device time, and the test waits a tenth of it.
 */
import type { DeviceClock } from '../../src/device/clock.js';

export function scaledClock(factor: number): DeviceClock {
  const origin = performance.now();
  const wallOrigin = Date.now();
  const now = (): number => (performance.now() - origin) * factor;
  return {
    now,
    wallNow: () => wallOrigin + now(),
    wallAt: (at) => wallOrigin + at,
    setTimeout: (callback, ms) => {
      const timer = setTimeout(callback, ms / factor);
      timer.unref();
      return timer;
    },
    clearTimeout: (handle) => {
      clearTimeout(handle as NodeJS.Timeout);
    },
  };
}
