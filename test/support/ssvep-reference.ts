/**
 * The ssvep node's independent reference: scipy and scikit-learn (/usr/bin/python3) score the very
 * samples fed to the node (test/support/ssvep_reference.py says how).
 */
import { join } from 'node:path';
import { callPython, pythonFile } from './python.js';

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

const REFERENCE = pythonFile(join(import.meta.dirname, 'ssvep_reference.py'));

/** The scores of the job's windows, computed in the test file's python process (test/support/python.ts). */
export function referenceScores(job: ReferenceJob): Promise<ReferenceAnswer> {
  const { samples, ...rest } = job;
  return callPython<ReferenceAnswer>(REFERENCE, 'scores', { ...rest, subBands: job.subBands ?? 5 }, samples);
}
