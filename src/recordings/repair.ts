/**
 * Startup repair (docs/recording.md §Crash safety). Call it once at service start, before any stream runs,
 * with the names of recordings being written (none at start). Never throws for one bad file: its
 * outcome says `error`. For every recording no recorder is writing:
 * - Temporary files (`.<name>.tmp`: a recording killed before its first record was on disk;
 *   `.<name>.json.tmp` and the `.<name>.json.<pid>.tmp` of earlier versions: a sidecar being
 *   rewritten) are removed.
 * - A sidecar saying `complete: false` whose file is missing (killed before its first record) is
 *   removed.
 * - A recording whose sidecar says `complete: false` is made readable again: EDF/BDF by
 *   formats/edf-repair.ts (a torn last record cut, the header's record count set to the whole
 *   records in the file), CSV by cutting a torn last line. One left without a single data record
 *   (header only: written by earlier versions when killed in their first second, and refused by
 *   EDFlib and MNE) is removed with its sidecar and events file: the listing never offers a file
 *   readers reject. A kept file stays `complete: false` (its end was lost); its sidecar records what
 *   repair did in `repaired` and the file's duration in `durationSeconds`.
 * Every action is in the result, for the service log.
 */
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
} from 'node:fs';
import path from 'node:path';
import { EdfReader } from '../formats/edf-reader.js';
import { repairEdf } from '../formats/edf-repair.js';
import { eventsNameOf, isPlainName, isTemporaryName, recordingPath } from './paths.js';
import { type RecordingMeta, readSidecar, removeSidecar, writeSidecar } from './sidecar.js';
import { errorMessage } from '../core/error-message.js';

export interface RecordingRepair {
  name: string;
  /** What was done, for the service log; `error` when the file could not be repaired. */
  outcome: 'repaired' | 'unchanged' | 'removed' | 'error';
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

/** Removes an incomplete recording that holds no data record, with its sidecar and events file. */
function removeEmpty(dir: string, meta: RecordingMeta): RecordingRepair {
  rmSync(recordingPath(dir, meta.name), { force: true });
  const events = meta.eventsFile ?? (meta.format === 'csv' ? eventsNameOf(meta.name) : undefined);
  if (events !== undefined && isPlainName(events)) rmSync(recordingPath(dir, events), { force: true });
  removeSidecar(dir, meta.name);
  return {
    name: meta.name,
    outcome: 'removed',
    message: 'removed: it held no data record (its recorder was stopped in its first second)',
  };
}

function repairOne(dir: string, name: string): RecordingRepair {
  const meta = readSidecar(dir, name);
  if (meta === undefined || meta.complete) return { name, outcome: 'unchanged', message: 'complete' };
  const file = recordingPath(dir, name);
  if (!existsSync(file)) {
    removeSidecar(dir, name);
    return {
      name,
      outcome: 'removed',
      message: 'removed the sidecar of a recording stopped before its first record was on disk',
    };
  }
  try {
    let message: string;
    let repaired: boolean;
    let durationSeconds: number;
    if (meta.format === 'csv') {
      const { truncatedBytes, lines } = repairCsv(file);
      if (lines <= 1) return removeEmpty(dir, meta);
      repaired = truncatedBytes > 0;
      durationSeconds = (lines - 1) / meta.sampleRate;
      message = repaired ? `cut a torn last line of ${truncatedBytes} bytes` : 'file ends on a whole line';
    } else {
      const result = repairEdf(file);
      if (result.records === 0) return removeEmpty(dir, meta);
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
    return { name, outcome: 'error', message: errorMessage(error) };
  }
}

/** The recording a temporary file belongs to: `.<name>.tmp`, `.<name>.json.tmp`, `.<name>.json.<pid>.tmp`. */
function ownerOfTemporary(entry: string): string {
  return entry.slice(1, -'.tmp'.length).replace(/\.json(\.\d+)?$/, '');
}

/** Repairs every incomplete recording of `dir` not in `active`; see the file comment. */
export function repairRecordings(dir: string, active: ReadonlySet<string> = new Set()): RecordingRepair[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const out: RecordingRepair[] = [];
  for (const entry of entries.sort()) {
    if (!isTemporaryName(entry) || active.has(ownerOfTemporary(entry))) continue;
    try {
      rmSync(path.join(dir, entry), { force: true });
      out.push({
        name: ownerOfTemporary(entry),
        outcome: 'removed',
        message: `removed the temporary file ${entry}`,
      });
    } catch (error) {
      out.push({
        name: ownerOfTemporary(entry),
        outcome: 'error',
        message: errorMessage(error),
      });
    }
  }
  for (const entry of entries.sort()) {
    const match = /^\.(.+)\.json$/.exec(entry);
    const name = match?.[1];
    if (name === undefined || active.has(name)) continue;
    try {
      out.push(repairOne(dir, name));
    } catch (error) {
      out.push({ name, outcome: 'error', message: errorMessage(error) });
    }
  }
  return out.filter((r) => r.message !== 'complete');
}
