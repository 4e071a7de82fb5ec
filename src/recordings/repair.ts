/**
 * Startup repair (issue 5 §Crash safety): every recording whose sidecar says `complete: false`
 * and that no recorder is writing is made readable again:
 * - EDF/BDF: formats/edf-repair.ts (a torn last record cut, the header's record count set to the
 *   whole records in the file);
 * - CSV: a torn last line (bytes after the last line end) cut.
 * The sidecar stays `complete: false` (the end of the recording was lost) and records what repair
 * did in `repaired` and the file's duration in `durationSeconds`. Call it once at service start,
 * before any stream runs, with the names of recordings being written (none at start).
 */
import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readdirSync, readSync } from 'node:fs';
import { EdfReader } from '../formats/edf-reader.js';
import { repairEdf } from '../formats/edf-repair.js';
import { recordingPath } from './paths.js';
import { readSidecar, writeSidecar } from './sidecar.js';

export interface RecordingRepair {
  name: string;
  /** What was done, for the service log; `error` when the file could not be repaired. */
  outcome: 'repaired' | 'unchanged' | 'missing' | 'error';
  message: string;
}

/** Cuts the bytes after the last `\n`; returns bytes cut and the whole lines kept (header included). */
export function repairCsv(file: string): { truncatedBytes: number; lines: number } {
  const fd = openSync(file, 'r+');
  try {
    const size = fstatSync(fd).size;
    const chunk = Buffer.alloc(1 << 16);
    let lines = 0;
    let lastNewline = -1;
    for (let at = 0; at < size; ) {
      const got = readSync(fd, chunk, 0, chunk.length, at);
      if (got <= 0) break;
      for (let i = 0; i < got; i++) {
        if (chunk[i] === 0x0a) {
          lines++;
          lastNewline = at + i;
        }
      }
      at += got;
    }
    const keep = lastNewline + 1;
    if (keep < size) {
      ftruncateSync(fd, keep);
      fdatasyncSync(fd);
    }
    return { truncatedBytes: size - keep, lines };
  } finally {
    closeSync(fd);
  }
}

function repairOne(dir: string, name: string): RecordingRepair {
  const meta = readSidecar(dir, name);
  if (meta === undefined || meta.complete) return { name, outcome: 'unchanged', message: 'complete' };
  const file = recordingPath(dir, name);
  try {
    let message: string;
    let repaired: boolean;
    let durationSeconds: number;
    if (meta.format === 'csv') {
      const { truncatedBytes, lines } = repairCsv(file);
      repaired = truncatedBytes > 0;
      durationSeconds = Math.max(0, lines - 1) / meta.sampleRate;
      message = repaired ? `cut a torn last line of ${truncatedBytes} bytes` : 'file ends on a whole line';
    } else {
      const result = repairEdf(file);
      repaired = result.repaired;
      const reader = EdfReader.open(file);
      durationSeconds = reader.durationSeconds;
      reader.close();
      message = repaired
        ? `${result.records} whole records kept${result.truncatedBytes > 0 ? `, a torn record of ${result.truncatedBytes} bytes cut` : ''}, record count fixed`
        : `${result.records} whole records, header already consistent`;
    }
    writeSidecar(dir, { ...meta, complete: false, durationSeconds, repaired: message });
    return { name, outcome: repaired ? 'repaired' : 'unchanged', message };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { name, outcome: 'missing', message: 'the file is gone' };
    return { name, outcome: 'error', message: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Repairs every incomplete recording of `dir` not in `active`; see the file comment. Never
 * throws for one bad file: its outcome says `error`.
 */
export function repairRecordings(dir: string, active: ReadonlySet<string> = new Set()): RecordingRepair[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const out: RecordingRepair[] = [];
  for (const entry of entries.sort()) {
    const match = /^\.(.+)\.json$/.exec(entry);
    const name = match?.[1];
    if (name === undefined || active.has(name)) continue;
    try {
      out.push(repairOne(dir, name));
    } catch (error) {
      out.push({ name, outcome: 'error', message: error instanceof Error ? error.message : String(error) });
    }
  }
  return out.filter((r) => r.message !== 'complete');
}
