/**
 * What the recorder says when the disk is full: the node's `lastError` (and so the `node_crashed`
 * system event) names the file, the errno, the free space the file system reports and the space
 * the recording needs, so a person sees the root cause and what to free. Sizes are estimates of
 * the file's growth, not exact figures.
 */
import { statfsSync } from 'node:fs';
import type { SegmentSpec } from './recorder-file.js';

/** Errors that mean the disk (or the file-size limit) is full. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EFBIG' || code === 'EDQUOT';
}

const CAUSES: Record<string, string> = {
  ENOSPC: 'ENOSPC, no space left on the device',
  EFBIG: 'EFBIG, the file size limit was reached',
  EDQUOT: 'EDQUOT, the disk quota is used up',
};

/** Bytes free for this process on the file system of `dir`, or undefined when unknown. */
function freeBytes(dir: string): number | undefined {
  try {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
}

/** `512 B`, `64.5 kB`, `12.3 MB`, `4.1 GB` (decimal units). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${Math.round(bytes)} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit] ?? 'TB'}`;
}

/** Bytes one second of this recording adds to its file (about). */
export function bytesPerSecond(spec: SegmentSpec): number {
  const { channels, sampleRate } = spec;
  if (spec.format === 'csv') {
    // A float32 value takes up to ~12 characters with its comma; a timestamp ~15.
    return Math.ceil(sampleRate * (channels.length * 12 + (spec.includeTimestamps ? 15 : 0)));
  }
  const bytes = spec.format === 'bdf' ? 3 : 2;
  // Plus the annotation signal: 512 bytes per record, records of 1 s or shorter.
  return Math.ceil(channels.length * sampleRate * bytes + 512);
}

/** Bytes of the header a new file starts with (about). */
function headerBytes(spec: SegmentSpec): number {
  return spec.format === 'csv' ? spec.channels.length * 8 + 16 : 256 * (spec.channels.length + 2);
}

function where(dir: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const free = freeBytes(dir);
  const cause = CAUSES[code] ?? code;
  return `${cause}; ${free === undefined ? 'free space unknown' : `${formatBytes(free)} free`} in ${dir}`;
}

/** The recording stopped after `keptSeconds` on disk. */
export function stoppedMessage(spec: SegmentSpec, keptSeconds: number, error: unknown): string {
  return (
    `disk full: recording ${spec.name} stopped after ${Math.round(keptSeconds)} s; the file is valid up to there ` +
    `(${where(spec.dir, error)}; the recording needs about ${formatBytes(bytesPerSecond(spec))} per second)`
  );
}

/** The recording could not write its first second: nothing is kept under its name. */
export function notStartedMessage(spec: SegmentSpec, error: unknown): string {
  return (
    `disk full: recording ${spec.name} could not start and no file was kept ` +
    `(${where(spec.dir, error)}; its first second needs about ${formatBytes(headerBytes(spec) + bytesPerSecond(spec))}); ` +
    'free some space (DELETE /system/recordings/{name}), then start the stream again'
  );
}
