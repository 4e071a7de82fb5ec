/**
 * Streaming CSV writer for recordings: a header line (`timestamp` first when asked, then the
 * channel names, quoted per RFC 4180 §2 when they hold a comma, quote or line break), then one
 * line per sample. Samples are written with the fewest digits that round-trip float32
 * (core/float32-text.ts); timestamps in milliseconds since the Unix epoch with up to three decimals
 * (microseconds: the resolution a double keeps at today's epoch values). Lines end with `\n`.
 *
 * Same discipline as the EDF writer: lines are held in memory and appended by `flush()`, which
 * then fdatasyncs, so after each flush the file holds only whole lines. `write` flushes by itself
 * once `flushIntervalSeconds` (default 1 s) of samples is pending (or 1 MiB of text when no
 * sample rate is known); `close` flushes and syncs.
 */
import { closeSync, fdatasyncSync, ftruncateSync, openSync, rmSync } from 'node:fs';
import { FormatError } from './format-error.js';
import { float32Text } from '../core/float32-text.js';
import { writeFully } from './write-fully.js';

export interface CsvWriterOptions {
  /** Column names, one per channel. */
  channels: string[];
  /** Write a `timestamp` column first (needs `sampleRate`). */
  includeTimestamps?: boolean;
  /** Hz: spaces the timestamps within a block and sets the flush cadence. */
  sampleRate?: number;
  /** Seconds of samples held in memory before `write` flushes by itself. Default 1. */
  flushIntervalSeconds?: number;
  /** Replace an existing file (default false: refuse). */
  overwrite?: boolean;
}

/** Bytes of pending text that force a flush when no sample rate sets the cadence. */
const MAX_PENDING_BYTES = 1 << 20;

/** RFC 4180 §2.6–2.7: quote a field holding a comma, quote or line break; double its quotes. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Milliseconds with at most three decimals, trailing zeros dropped. */
export function formatTimestamp(ms: number): string {
  // Integer microseconds (exact below 2^53 µs, year 2255) avoid toFixed's cost on the hot path.
  const us = Math.round(ms * 1000);
  if (!Number.isSafeInteger(us) || us < 0) return String(Number(ms.toFixed(3)));
  const whole = Math.floor(us / 1000);
  let fraction = us - whole * 1000;
  if (fraction === 0) return String(whole);
  let digits = 3;
  while (fraction % 10 === 0) {
    fraction /= 10;
    digits--;
  }
  return `${whole}.${String(fraction).padStart(digits, '0')}`;
}

export class CsvWriter {
  readonly path: string;
  readonly channelCount: number;
  readonly includeTimestamps: boolean;
  readonly sampleRate: number | undefined;
  /** Bytes in the file (after the last flush). */
  bytesWritten = 0;
  /** Sample lines in the file (after the last flush). */
  rowsWritten = 0;
  private fd: number | undefined;
  private pending: string[] = [];
  private pendingRows = 0;
  private pendingBytes = 0;
  private samples = 0;
  private nextTimestamp: number | undefined;
  private readonly flushRows: number;

  private constructor(path: string, options: CsvWriterOptions) {
    const { channels, sampleRate } = options;
    if (channels.length < 1) throw new FormatError('A CSV recording needs at least one channel.');
    if (sampleRate !== undefined && !(sampleRate > 0 && Number.isFinite(sampleRate))) {
      throw new FormatError(`The sample rate ${sampleRate} Hz is not a positive number.`);
    }
    this.includeTimestamps = options.includeTimestamps ?? false;
    if (this.includeTimestamps && sampleRate === undefined) {
      throw new FormatError('CSV timestamps need the sample rate.');
    }
    this.path = path;
    this.channelCount = channels.length;
    this.sampleRate = sampleRate;
    this.flushRows =
      sampleRate === undefined
        ? Number.POSITIVE_INFINITY
        : Math.max(1, Math.ceil(sampleRate * (options.flushIntervalSeconds ?? 1)));
    const names = this.includeTimestamps ? ['timestamp', ...channels] : channels;
    this.fd = openSync(path, options.overwrite === true ? 'w' : 'wx');
    this.pending.push(`${names.map(csvField).join(',')}\n`);
    try {
      this.flush();
    } catch (error) {
      // Leave no header-less file behind (the name was free: 'wx', or is being replaced).
      closeSync(this.fd);
      this.fd = undefined;
      rmSync(path, { force: true });
      throw error;
    }
  }

  /** Creates the file (refusing an existing one unless `overwrite`) and writes the header line. */
  static open(path: string, options: CsvWriterOptions): CsvWriter {
    return new CsvWriter(path, options);
  }

  /** Seconds of samples accepted (undefined without a sample rate). */
  get durationSeconds(): number | undefined {
    return this.sampleRate === undefined ? undefined : this.samples / this.sampleRate;
  }

  /** Samples per channel accepted by `write` (flushed or not). */
  get samplesWritten(): number {
    return this.samples;
  }

  /**
   * Appends `samples` rows of interleaved data (`data[s * channels + c]`).
   * @param timestampMs time of the first sample in ms since the epoch; when omitted, the
   *   timestamps continue from the previous block. Required on the first block with timestamps.
   */
  write(data: Float32Array | Float64Array, samples: number, timestampMs?: number): void {
    if (this.fd === undefined) throw new Error(`CsvWriter for ${this.path} is closed`);
    const C = this.channelCount;
    if (!Number.isInteger(samples) || samples < 0 || samples * C > data.length) {
      throw new FormatError(
        `write: ${samples} samples of ${C} channels need ${samples * C} values, got ${data.length}.`,
      );
    }
    const start = timestampMs ?? this.nextTimestamp;
    if (this.includeTimestamps && start === undefined) {
      throw new FormatError('The first block of a CSV recording with timestamps needs its timestamp.');
    }
    const period = this.sampleRate === undefined ? 0 : 1000 / this.sampleRate;
    // One reused field array per row and one join per block: far fewer temporary strings than
    // concatenating field by field (this loop is the hot path of a 16 kHz recording).
    const first = this.includeTimestamps ? 1 : 0;
    const fields = new Array<string>(C + first);
    const lines = new Array<string>(samples);
    for (let s = 0; s < samples; s++) {
      if (first === 1) fields[0] = formatTimestamp((start as number) + s * period);
      for (let c = 0; c < C; c++) fields[c + first] = float32Text(data[s * C + c] as number);
      lines[s] = fields.join(',');
    }
    if (samples > 0) {
      const block = `${lines.join('\n')}\n`;
      this.pending.push(block);
      this.pendingBytes += block.length;
    }
    this.pendingRows += samples;
    this.samples += samples;
    if (start !== undefined) this.nextTimestamp = start + samples * period;
    if (this.pendingRows >= this.flushRows || this.pendingBytes >= MAX_PENDING_BYTES) this.flush();
  }

  /** Appends the pending lines and fdatasyncs: the file then holds only whole lines. */
  flush(): void {
    if (this.fd === undefined) throw new Error(`CsvWriter for ${this.path} is closed`);
    if (this.pending.length === 0) return;
    const chunk = Buffer.from(this.pending.join(''), 'utf8');
    try {
      writeFully(this.fd, chunk, this.bytesWritten);
      fdatasyncSync(this.fd);
    } catch (error) {
      // Full disk or I/O error: cut the half-written tail so the file ends on a whole line.
      try {
        ftruncateSync(this.fd, this.bytesWritten);
      } catch {
        // Nothing more to do; a reader drops a torn last line.
      }
      throw error;
    }
    this.bytesWritten += chunk.length;
    this.rowsWritten += this.pendingRows;
    this.pending = [];
    this.pendingRows = 0;
    this.pendingBytes = 0;
  }

  /** Flushes, syncs and closes. */
  close(): void {
    if (this.fd === undefined) return;
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }
}
