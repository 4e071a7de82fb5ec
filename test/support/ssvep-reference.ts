/**
 * The ssvep node's independent reference: scipy and scikit-learn (/usr/bin/python3) score the very
 * samples fed to the node (test/support/ssvep_reference.py says how).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ReferenceJob {
  rate: number;
  /** Row-major samples, `width` per row, as the node was fed them (float32). */
  samples: Float32Array;
  width: number;
  columns: number[];
  length: number;
  step: number;
  /** Window starts (samples); default every `step` from 0. */
  starts?: number[];
  frequencies: number[];
  harmonics: number;
  method: 'cca' | 'fbcca';
  subBands?: number;
  /** fbcca: filter each window alone from a zero state (the node after a discontinuity). */
  filterEachWindow?: boolean;
}

export interface ReferenceAnswer {
  scores: number[][];
  /** CPU time python spent scoring, s. */
  seconds: number;
}

const SCRIPT = join(import.meta.dirname, 'ssvep_reference.py');

export function referenceScores(job: ReferenceJob): ReferenceAnswer {
  const dir = mkdtempSync(join(tmpdir(), 'ssvep-ref-'));
  try {
    const data = join(dir, 'samples.f32');
    writeFileSync(data, Buffer.from(job.samples.buffer, job.samples.byteOffset, job.samples.byteLength));
    const { samples: _samples, ...rest } = job;
    const run = spawnSync('/usr/bin/python3', [SCRIPT], {
      input: JSON.stringify({ ...rest, data, subBands: job.subBands ?? 5 }),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (run.status !== 0) throw new Error(`ssvep_reference.py failed: ${run.stderr}`);
    return JSON.parse(run.stdout) as ReferenceAnswer;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
