/**
 * When a paced source's samples exist: sample k of a run at `rate` samples a second exists from
 * its own instant, the run's start + k / rate, as an ADC's sample does once its instant has
 * passed. The device's production and the signal generator both pace by these two rules, so a
 * frame leaves at its last sample's instant and not a sample period later.
 */

/** The instant of sample `k` (same clock and unit as `startMs`: milliseconds). */
export function sampleInstant(startMs: number, k: number, rate: number): number {
  return startMs + (k * 1000) / rate;
}

/**
 * How many samples exist at `atMs`: those whose instant is not after it (sample 0 from the start).
 * The 1e-9 keeps an instant computed by `sampleInstant` on its own sample despite rounding.
 */
export function samplesDue(startMs: number, atMs: number, rate: number): number {
  return Math.floor(((atMs - startMs) * rate) / 1000 + 1e-9) + 1;
}
