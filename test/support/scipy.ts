/**
 * Runs a Python script with Debian's scipy (/usr/bin/python3, the test file's one process of
 * test/support/python.ts) on samples written to a file, and returns what it prints as JSON: the
 * independent reference of the computing nodes' tests. The script gets the data file's path as
 * sys.argv[1] and a JSON argument as sys.argv[2].
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runPythonScript } from './python.js';
import { scratchDir } from './scratch.js';

export async function runScipy(script: string, data: Float32Array, argument: unknown): Promise<unknown> {
  const dir = scratchDir('headsetd-scipy');
  try {
    const file = path.join(dir, 'x.f32');
    writeFileSync(file, data);
    const run = await runPythonScript(script, [file, JSON.stringify(argument)]);
    return JSON.parse(run.stdout) as unknown;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Deterministic pseudo-EEG, interleaved: per channel a sine of its own plus uniform noise (µV). */
export function pseudoEeg(frames: number, channels: number, rate: number, seed = 12345): Float32Array {
  const x = new Float32Array(frames * channels);
  let s = seed;
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < channels; c++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      const sine = 20 * Math.sin((2 * Math.PI * (6 + 3 * c) * i) / rate + c);
      x[i * channels + c] = sine + ((s >>> 0) / 2 ** 32 - 0.5) * 30 + 5 * c;
    }
  }
  return x;
}

/** Frame sizes that vary (1 to `largest` rows, repeatably) and cover `frames` in total. */
export function varyingSizes(frames: number, largest: number, seed = 7): number[] {
  const sizes: number[] = [];
  let s = seed;
  for (let done = 0; done < frames; ) {
    s = (s * 16807) % 2147483647;
    const size = Math.min(frames - done, 1 + (s % largest));
    sizes.push(size);
    done += size;
  }
  return sizes;
}
