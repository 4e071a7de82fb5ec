/** Shared helpers of the EDF writer tests: temp dirs, deterministic data, tolerance checks. */
import { rmSync } from 'node:fs';
import { afterAll } from 'vitest';
import type { EdfSignalHeader } from '../../src/formats/edf-reader.js';
import { prng } from '../support/prng.js';
import { scratchDir } from '../support/scratch.js';

export { prng };

/** A fresh temp dir, removed after the calling file's (or describe block's) tests. */
export function tempDir(prefix: string): string {
  const dir = scratchDir(prefix);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Interleaved float32 samples uniformly within each channel's [min, max]. */
export function randomData(
  seed: number,
  samples: number,
  ranges: { min: number; max: number }[],
): Float32Array {
  const next = prng(seed);
  const data = new Float32Array(samples * ranges.length);
  for (let s = 0; s < samples; s++) {
    ranges.forEach((r, c) => {
      // Stay a hair inside the range so float32 rounding cannot push a value past a limit.
      data[s * ranges.length + c] = r.min + (r.max - r.min) * (0.0005 + 0.999 * next());
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
