/** Driving a device whose clock is moved by hand (ManualClock) through an operation, without sleeps. */
import type { ManualClock } from '../../src/device/replay/manual-clock.js';

/**
 * Moves `clock` in `stepMs` steps, letting promises and I/O callbacks run between steps, until
 * `work` settles; answers its value or throws its error.
 */
export async function onDeviceTime<T>(clock: ManualClock, work: Promise<T>, stepMs = 10): Promise<T> {
  let outcome: { value: T } | { error: unknown } | undefined;
  work.then(
    (value) => (outcome = { value }),
    (error: unknown) => (outcome = { error }),
  );
  for (let step = 0; outcome === undefined; step++) {
    if (step > 1_000_000) throw new Error('the operation never ended on device time');
    await new Promise<void>((resolve) => setImmediate(resolve));
    clock.advance(stepMs);
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}
