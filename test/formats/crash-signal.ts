/** The deterministic signal the kill -9 test's child records, so the parent can check it. */
export const CRASH_RATE = 250;
export const CRASH_CHANNELS = 4;

/** Sample s of channel c, in µV. */
export function crashSample(s: number, c: number): number {
  return Math.fround(400 * Math.sin((2 * Math.PI * (c + 1) * s) / CRASH_RATE) + (s % 97));
}
