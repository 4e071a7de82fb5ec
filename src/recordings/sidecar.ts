/**
 * The metadata sidecar of a recording (`<recordings>/.<name>.json`): written by the recorder when
 * the file is created, still under its hidden name (`complete: false`; it claims the name), and
 * again at a clean close (`complete: true`), always
 * atomically (`.<name>.json.tmp`, fsync, rename, fsync of the directory), so a crash leaves
 * either the old or the new sidecar, never a torn one. `complete: false` after a restart means the
 * recorder did not close the file: startup repair (./repair.ts) fixes such files.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { sidecarPath, sidecarTempPath } from './paths.js';

export type RecordingFormat = 'edf' | 'bdf' | 'csv';

export interface RecordingMeta {
  /** File name inside the recordings directory. */
  name: string;
  format: RecordingFormat;
  channels: string[];
  /** Each channel's unit, present when some channel is not in µV (core/frame.ts `units`). */
  units?: string[];
  /** Hz. */
  sampleRate: number;
  /** ISO 8601: the time of the first sample. */
  created: string;
  /** True once the recorder closed the file cleanly. */
  complete: boolean;
  /** Seconds of samples; set at close and by repair (absent while recording). */
  durationSeconds?: number;
  /** The stream and node that wrote it (a restarted recorder continues in a new segment). */
  streamId?: string;
  nodeId?: string;
  /** CSV: the file holding the annotations. */
  eventsFile?: string;
  /** Set by startup repair: what it did. */
  repaired?: string;
  /** Why the recording stopped early (disk full). */
  stoppedBy?: string;
}

/**
 * Writes the sidecar atomically; see the file comment. A failure (a full disk) leaves the earlier
 * sidecar, if any, and no temporary file.
 */
export function writeSidecar(dir: string, meta: RecordingMeta): void {
  const target = sidecarPath(dir, meta.name);
  const temp = sidecarTempPath(dir, meta.name);
  try {
    const fd = openSync(temp, 'w');
    try {
      writeSync(fd, `${JSON.stringify(meta, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  syncDirectory(dir);
}

/** The directory entry of a rename survives power loss only once the directory is synced. */
export function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(path.resolve(dir), 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the rename is still atomic there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** The sidecar of `name`, or undefined when it is absent or not a sidecar this layer wrote. */
export function readSidecar(dir: string, name: string): RecordingMeta | undefined {
  let text: string;
  try {
    text = readFileSync(sidecarPath(dir, name), 'utf8');
  } catch {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const meta = value as Partial<RecordingMeta>;
  const valid =
    meta.name === name &&
    (meta.format === 'edf' || meta.format === 'bdf' || meta.format === 'csv') &&
    isStringArray(meta.channels) &&
    typeof meta.sampleRate === 'number' &&
    typeof meta.created === 'string' &&
    typeof meta.complete === 'boolean';
  return valid ? (meta as RecordingMeta) : undefined;
}

/** Removes the sidecar of `name` (no error when there is none). */
export function removeSidecar(dir: string, name: string): void {
  rmSync(sidecarPath(dir, name), { force: true });
}
