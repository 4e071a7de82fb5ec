/**
 * Reader of the OpenBCI GUI's raw text recordings ("OpenBCI-RAW-*.txt"): `%` header lines
 * (`%Sample Rate = 250 Hz`, `%Number of channels = 8`, `%Board = …`), then, from GUI v5 on, a
 * line of column names (`Sample Index, EXG Channel 0, …, Timestamp, …`), then one comma-separated
 * line per sample. EXG channels are in µV (the GUI scales the ADC counts before writing);
 * `Timestamp` is milliseconds since the Unix epoch. Files without a column line (GUI v4) are read
 * as: sample index, then the EXG channels the header counts.
 *
 * The file is read whole (OpenBCI recordings are text files of tens of MB at most). Lines that do
 * not parse (for example a torn last line) are skipped and counted in `skippedLines`.
 */
import { readFileSync } from 'node:fs';
import { FormatError } from './format-error.js';

export interface OpenBciRecording {
  sampleRate: number;
  /** `Board = …` from the header, when present. */
  board: string | undefined;
  /** EXG column names (`EXG Channel 0` …), in file order. */
  channels: string[];
  /** µV, one array per EXG channel. */
  data: Float64Array[];
  /** Milliseconds since the epoch per sample, when the file has a `Timestamp` column. */
  timestamps: Float64Array | undefined;
  /** Sample count per channel. */
  samples: number;
  skippedLines: number;
}

function refuse(path: string, reason: string): FormatError {
  return new FormatError(`Not a readable OpenBCI GUI recording (${path}): ${reason}.`);
}

/** Reads an OpenBCI GUI text recording; see the file comment for the layout. */
export function readOpenBciCsv(path: string): OpenBciRecording {
  const lines = readFileSync(path, 'utf8').split(/\r?\n/);
  let sampleRate: number | undefined;
  let channelCount: number | undefined;
  let board: string | undefined;
  let at = 0;
  for (; at < lines.length && (lines[at] ?? '').startsWith('%'); at++) {
    const line = lines[at] ?? '';
    const rate = /^%\s*Sample Rate\s*=\s*([\d.]+)\s*Hz/i.exec(line);
    if (rate) sampleRate = Number(rate[1]);
    const count = /^%\s*Number of channels\s*=\s*(\d+)/i.exec(line);
    if (count) channelCount = Number(count[1]);
    const b = /^%\s*Board\s*=\s*(.+)$/i.exec(line);
    if (b) board = (b[1] ?? '').trim();
  }
  if (at === 0) throw refuse(path, 'no "%" header lines');
  if (sampleRate === undefined || !(sampleRate > 0))
    throw refuse(path, 'no "%Sample Rate = … Hz" header line');

  // GUI v5+: a column-name line; GUI v4: none (the first line is already a sample).
  const first = (lines[at] ?? '').split(',').map((s) => s.trim());
  const hasNames = first.length > 0 && Number.isNaN(Number(first[0]));
  let exgColumns: number[];
  let channels: string[];
  let timestampColumn: number | undefined;
  if (hasNames) {
    exgColumns = first.flatMap((name, i) => (/^EXG Channel \d+$/i.test(name) ? [i] : []));
    channels = exgColumns.map((i) => first[i] ?? '');
    const t = first.findIndex((name) => name === 'Timestamp');
    timestampColumn = t === -1 ? undefined : t;
    at++;
  } else {
    if (channelCount === undefined) throw refuse(path, 'no column names and no "%Number of channels" line');
    exgColumns = Array.from({ length: channelCount }, (_, i) => i + 1);
    channels = exgColumns.map((_, i) => `EXG Channel ${i}`);
  }
  if (exgColumns.length === 0) throw refuse(path, 'no "EXG Channel" column');

  const columns: number[][] = exgColumns.map(() => []);
  const times: number[] = [];
  let skippedLines = 0;
  const needed = Math.max(...exgColumns, timestampColumn ?? 0);
  for (; at < lines.length; at++) {
    const line = lines[at] ?? '';
    if (line.trim() === '') continue;
    const fields = line.split(',');
    if (fields.length <= needed) {
      skippedLines++;
      continue;
    }
    const values = exgColumns.map((i) => Number(fields[i]));
    const time = timestampColumn === undefined ? 0 : Number(fields[timestampColumn]);
    if (values.some((v) => !Number.isFinite(v)) || !Number.isFinite(time)) {
      skippedLines++;
      continue;
    }
    values.forEach((v, k) => columns[k]?.push(v));
    times.push(time);
  }
  return {
    sampleRate,
    board,
    channels,
    data: columns.map((c) => Float64Array.from(c)),
    timestamps: timestampColumn === undefined ? undefined : Float64Array.from(times),
    samples: times.length,
    skippedLines,
  };
}
