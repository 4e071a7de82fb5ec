/** Shared helpers of the EDF writer tests: temp dirs, deterministic data, tolerance checks. */
import type { EdfSignalHeader } from '../../src/formats/edf-reader.js';
import { prng } from '../support/prng.js';

export { prng };

const bits32 = new Float32Array(1);
const int32 = new Int32Array(bits32.buffer);

/** The float32 next to the float32 `f`, towards +∞ (`up`) or −∞. */
function nextFloat32(f: number, up: boolean): number {
  if (f === 0) return up ? 2 ** -149 : -(2 ** -149);
  bits32[0] = f;
  int32[0] = (int32[0] as number) + (f > 0 === up ? 1 : -1);
  return bits32[0];
}

/** The float32 nearest to `value` (within [min, max]) that lies within [min, max], if one does. */
function float32Within(value: number, min: number, max: number): number | undefined {
  let f = Math.fround(value);
  if (f > max) f = nextFloat32(f, false);
  if (f < min) f = nextFloat32(f, true);
  return f >= min && f <= max ? f : undefined;
}

/** Whether some float32 value lies within [min, max] (a range narrower than float32's step may hold none). */
export function holdsFloat32(min: number, max: number): boolean {
  return float32Within(min, min, max) !== undefined;
}

/**
 * Interleaved float32 samples uniformly within each channel's [min, max], each a float32 inside
 * the range: a value rounded to float32 can land past a limit when the range is narrow beside
 * float32's step at its magnitude (0.07 wide at 10,000, where the step is 0.001), so the rounded
 * value is moved one step back inside. A range that holds no float32 is refused.
 */
export function randomData(
  seed: number,
  samples: number,
  ranges: { min: number; max: number }[],
): Float32Array {
  const next = prng(seed);
  const data = new Float32Array(samples * ranges.length);
  for (let s = 0; s < samples; s++) {
    ranges.forEach((r, c) => {
      const value = float32Within(r.min + (r.max - r.min) * (0.0005 + 0.999 * next()), r.min, r.max);
      if (value === undefined) throw new RangeError(`no float32 value lies within [${r.min}, ${r.max}]`);
      data[s * ranges.length + c] = value;
    });
  }
  return data;
}

/** Half a quantisation step of a signal as written (EDF scaling), plus float noise. */
export function halfStep(s: EdfSignalHeader): number {
  const step = (s.physicalMax - s.physicalMin) / (s.digitalMax - s.digitalMin);
  return step / 2 + 1e-9 * Math.max(Math.abs(s.physicalMax), Math.abs(s.physicalMin));
}

/** Largest |read − written| over all samples of channel c. */
export function maxError(read: ArrayLike<number>, data: Float32Array, channels: number, c: number): number {
  let worst = 0;
  const samples = data.length / channels;
  for (let s = 0; s < samples; s++) {
    worst = Math.max(worst, Math.abs((read[s] as number) - (data[s * channels + c] as number)));
  }
  return worst;
}
