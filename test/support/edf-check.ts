/**
 * Runs EDFlib's strict reader on a file through the small C program edf-check.c, compiled once
 * (per source version) with gcc against libedf (`-ledf`) into a cache directory under the OS temp
 * dir. EDFlib (libedf-dev) is the strictest EDF+/BDF+ checker available on these machines.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface EdflibSignal {
  label: string;
  physicalDimension: string;
  physicalMin: number;
  physicalMax: number;
  digitalMin: number;
  digitalMax: number;
  samplesPerRecord: number;
  samplesInFile: number;
  samples?: number[];
}

export interface EdflibAnnotation {
  /** 100 ns ticks from the first sample (EDFlib subtracts the sub-second start). */
  onset: number;
  /** 100 ns ticks, -10000000 when absent. */
  duration: number;
  text: string;
}

export interface EdflibResult {
  ok: boolean;
  /** EDFlib's error code when !ok (−3: format errors). */
  error?: number;
  /** 0 EDF, 1 EDF+, 2 BDF, 3 BDF+. */
  filetype: number;
  signalCount: number;
  datarecords: number;
  datarecordDuration: number;
  fileDuration: number;
  start: number[];
  startSubsecond: number;
  signals: EdflibSignal[];
  annotations: EdflibAnnotation[];
}

const source = join(dirname(fileURLToPath(import.meta.url)), 'edf-check.c');

let binary: string | undefined;

/** Compiles edf-check.c once into a cache dir keyed by the source's hash; returns its path. */
export function edfCheckBinary(): string {
  if (binary !== undefined) return binary;
  const hash = createHash('sha256').update(readFileSync(source)).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'headsetd-edf-check');
  const target = join(dir, `edf-check-${hash}`);
  if (!existsSync(target)) {
    mkdirSync(dir, { recursive: true });
    // Compile to a unique name, then rename: test files in parallel forks may race here.
    const temp = `${target}.${process.pid}.tmp`;
    execFileSync('gcc', ['-O2', '-Wall', '-o', temp, source, '-ledf']);
    renameSync(temp, target);
  }
  binary = target;
  return target;
}

/** What EDFlib read from `path` (samples included unless `samples: false`). */
export function edflibCheck(path: string, options: { samples?: boolean } = {}): EdflibResult {
  const args = [path, ...(options.samples === false ? ['--no-samples'] : [])];
  const run = spawnSync(edfCheckBinary(), args, { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  if (run.status !== 0 && run.status !== 2) throw new Error(`edf-check failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as EdflibResult;
}
