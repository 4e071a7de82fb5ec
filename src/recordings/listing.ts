/**
 * What GET /system/recordings shows: every regular, non-hidden file of the recordings directory,
 * described from its sidecar (./sidecar.ts) when it has one, else from its own header (EDF/BDF
 * header, CSV header line). A file that is neither, or an EDF/BDF without a data record (EDFlib
 * and MNE refuse it), is skipped with a log line: a strange file in the directory never breaks
 * the listing, and the listing never offers a file readers refuse. Recordings in their first
 * second are still hidden (`.<name>.tmp`, see streams/executables/recorder-file.ts), so never listed.
 *
 * `durationSeconds`: a complete recording's sidecar value (samples / rate); an EDF/BDF being
 * written or left incomplete: whole records in the file × record duration (the header's count is
 * patched every second); a CSV being written: (bytes after the header line) / (bytes of the first
 * data line) / rate, an estimate; null when the rate is unknown (a foreign CSV without timestamps).
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { EdfReader } from '../formats/edf-reader.js';
import { parseCsv } from '../formats/csv-reader.js';
import { formatOfName, isPlainName, recordingPath } from './paths.js';
import { type RecordingFormat, readSidecar } from './sidecar.js';
import { errorMessage } from '../core/error-message.js';

export interface RecordingSummary {
  name: string;
  format: RecordingFormat;
  bytes: number;
  /** ISO 8601: the first sample's time (or the file's birth time when nothing tells it). */
  created: string;
  durationSeconds: number | null;
  channels: string[];
  sampleRate: number | null;
  complete: boolean;
}

/** Where the listing reports files it skipped. */
export type SkipLog = (name: string, reason: string) => void;

/** Reads up to `max` bytes from the start of a file. */
function head(file: string, max: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(max);
    return buf.subarray(0, readSync(fd, buf, 0, max, 0));
  } finally {
    closeSync(fd);
  }
}

/** What an EDF/BDF header says; throws for a file EDF readers refuse (one without a data record). */
function edfSummary(file: string): Omit<RecordingSummary, 'name' | 'bytes'> {
  const reader = EdfReader.open(file);
  try {
    if (reader.recordCount === 0) throw new Error('it holds no data record (EDF readers refuse it)');
    return {
      format: reader.kind.format,
      created: reader.startTime.toISOString(),
      durationSeconds: reader.durationSeconds,
      channels: reader.signals.map((s) => s.label),
      sampleRate: reader.signals[0]?.sampleRate ?? null,
      complete: reader.warnings.length === 0,
    };
  } finally {
    reader.close();
  }
}

/** Header line, first data line and the rate its timestamps show, from the file's first 64 KiB. */
function csvHead(file: string): {
  header: string[];
  headerBytes: number;
  lineBytes: number;
  rate: number | null;
} {
  const text = head(file, 64 * 1024).toString('utf8');
  const rows = parseCsv(text, { dropTornLastLine: true });
  const header = rows[0];
  if (header === undefined || header.length === 0 || header.every((f) => f === '')) {
    throw new Error('no CSV header line');
  }
  const lines = text.split('\n');
  const headerBytes = Buffer.byteLength(lines[0] ?? '') + 1;
  const lineBytes = rows.length > 1 ? Buffer.byteLength(lines[1] ?? '') + 1 : 0;
  let rate: number | null = null;
  const t0 = Number(rows[1]?.[0]);
  const t1 = Number(rows[2]?.[0]);
  if (header[0] === 'timestamp' && t1 > t0) rate = Math.round((1000 / (t1 - t0)) * 1000) / 1000;
  return { header, headerBytes, lineBytes, rate };
}

function csvDuration(file: string, bytes: number, rate: number): number | null {
  const { headerBytes, lineBytes } = csvHead(file);
  if (lineBytes === 0) return 0;
  return Math.round(((bytes - headerBytes) / lineBytes / rate) * 1000) / 1000;
}

function csvSummary(file: string, bytes: number, birth: Date): Omit<RecordingSummary, 'name' | 'bytes'> {
  const { header, headerBytes, lineBytes, rate } = csvHead(file);
  const channels = header[0] === 'timestamp' ? header.slice(1) : header;
  return {
    format: 'csv',
    created: birth.toISOString(),
    durationSeconds: rate === null || lineBytes === 0 ? null : (bytes - headerBytes) / lineBytes / rate,
    channels,
    sampleRate: rate,
    complete: endsWithNewline(file, bytes),
  };
}

function endsWithNewline(file: string, bytes: number): boolean {
  if (bytes === 0) return false;
  const fd = openSync(file, 'r');
  try {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, bytes - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

/** True when the first bytes are an EDF (`0       `) or BDF (0xFF `BIOSEMI`) version field. */
function looksLikeEdf(file: string): boolean {
  const start = head(file, 8);
  return (
    start.toString('latin1') === '0       ' ||
    (start[0] === 0xff && start.subarray(1).toString('latin1') === 'BIOSEMI')
  );
}

/** Describes one recording; throws when the file is none this layer can read. */
export function describeRecording(dir: string, name: string): RecordingSummary {
  const file = recordingPath(dir, name);
  const stat = statSync(file);
  if (!stat.isFile()) throw new Error('not a regular file');
  const bytes = stat.size;
  const meta = readSidecar(dir, name);
  if (meta !== undefined) {
    // The header is read even for a complete recording: a file readers refuse is never offered.
    const header = meta.format === 'csv' ? undefined : edfSummary(file);
    let durationSeconds: number | null = meta.durationSeconds ?? null;
    if (!meta.complete || durationSeconds === null) {
      durationSeconds =
        header === undefined ? csvDuration(file, bytes, meta.sampleRate) : header.durationSeconds;
    }
    return {
      name,
      format: meta.format,
      bytes,
      created: meta.created,
      durationSeconds,
      channels: meta.channels,
      sampleRate: meta.sampleRate,
      complete: meta.complete,
    };
  }
  const format = formatOfName(name);
  if (format === 'edf' || format === 'bdf' || (format === undefined && looksLikeEdf(file))) {
    return { name, bytes, ...edfSummary(file) };
  }
  if (format === 'csv') return { name, bytes, ...csvSummary(file, bytes, stat.birthtime) };
  throw new Error('neither EDF/BDF nor CSV');
}

/** Every recording of the directory, sorted by name; see the file comment. */
export function listRecordings(dir: string, skipped: SkipLog = () => undefined): RecordingSummary[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const names = new Set(entries);
  const out: RecordingSummary[] = [];
  for (const name of entries.sort()) {
    if (!isPlainName(name)) continue;
    // A CSV recording's annotations file belongs to it, not a recording of its own.
    if (/\.events\.csv$/i.test(name) && names.has(name.replace(/\.events\.csv$/i, '.csv'))) continue;
    try {
      out.push(describeRecording(dir, name));
    } catch (error) {
      skipped(name, errorMessage(error));
    }
  }
  return out;
}
