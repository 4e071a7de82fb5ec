/**
 * Incremental, crash-safe writer of EDF+C (16-bit) and BDF+C (24-bit) files.
 *
 * Layout: the channels in the given order, then one annotation signal (`EDF Annotations` /
 * `BDF Annotations`) of ANNOTATION_BYTES_TARGET bytes per record (256 EDF samples, 171 BDF
 * samples): room for the time-keeping TAL and typically 5–10 short markers per record.
 * Digital range: the format's full range (EDF −32768..32767, BDF −8388608..8388607). Physical
 * values are mapped with the exact EDF scaling, rounded to nearest and clamped at the digital
 * limits; clamped (and non-finite) samples are counted in `clippedSamples`. NaN is written as
 * the code nearest 0 (and counted). `takeClipRuns` tells where: the runs of consecutive samples
 * with a clipped value. Record duration: ./edf-record-duration.ts.
 *
 * Start time: the header's date and time fields hold the UTC clock (no time-zone ambiguity);
 * the milliseconds go in the first time-keeping TAL (EDF+ §2.2.4). Annotation onsets passed to
 * `annotate` are seconds from the first sample.
 *
 * Annotations: queued, placed in the next record completed; what does not fit one record's
 * annotation signal carries to the following records (never dropped). A text longer than
 * MAX_ANNOTATION_TEXT_BYTES is cut to that length (UTF-8 safe); control characters become spaces.
 *
 * Crash safety: whole records are held in memory and appended by `flush()`, which then
 *   1. appends the records, 2. fdatasync, 3. patches the record count at byte 236, 4. fdatasync.
 * So after each flush the file holds only whole records and the count equals them; a kill between
 * steps leaves records the count does not yet cover, which `repairEdf` (./edf-repair.ts) counts
 * in. The header is written with count 0 and synced at open. `write` flushes by itself as soon as
 * `flushIntervalSeconds` (default 1 s) of data records are pending, so at most about one second of
 * data plus the record being filled is in memory; `close` flushes and syncs.
 *
 * The last partial record on close: padded with each channel's last value up to a whole record,
 * and an annotation `Recording ends` marks the true end (the time of the sample after the last
 * real one). No real sample is altered. Extra padded records are added the same way only if
 * queued annotations still need room. A file that never got a sample keeps 0 records.
 */
import { closeSync, fdatasyncSync, ftruncateSync, openSync, rmSync, writeSync } from 'node:fs';
import { FormatError } from './format-error.js';
import { RECORD_COUNT_OFFSET } from './edf-header.js';
import { checkRecordDuration, chooseRecordDuration } from './edf-record-duration.js';
import {
  encodeTal,
  encodeTimeKeepingTal,
  sanitizeTalText,
  secondsToTicks,
  TICKS_PER_SECOND,
  truncateUtf8,
} from './edf-tal.js';
import {
  buildHeader,
  DIGITAL_RANGE,
  type EdfChannel,
  patientField,
  planSignals,
  recordingField,
} from './edf-writer-header.js';

export type { EdfChannel } from './edf-writer-header.js';

/** Target bytes of the annotation signal per record. */
export const ANNOTATION_BYTES_TARGET = 512;
/** Longest annotation text written (UTF-8 bytes); longer texts are cut. */
export const MAX_ANNOTATION_TEXT_BYTES = 400;

export interface EdfWriterOptions {
  format: 'edf' | 'bdf';
  /** Hz; see ./edf-record-duration.ts for the rates accepted. */
  sampleRate: number;
  channels: EdfChannel[];
  /** Time of the first sample. */
  startTime: Date;
  /** EDF+ patient identification code (spaces become underscores). */
  patient?: string;
  /** Free text appended to the EDF+ recording field. */
  recording?: string;
  /** Overrides the record duration rule (must hold a whole number of samples). */
  recordDurationSeconds?: number;
  /** Seconds of data held in memory before `write` flushes (and fsyncs) by itself. Default 1. */
  flushIntervalSeconds?: number;
  /** Replace an existing file (default false: refuse). */
  overwrite?: boolean;
}

/** Consecutive samples (indices from the first sample) with at least one clipped value. */
export interface ClipRun {
  first: number;
  last: number;
  /** Values clipped in the run (a sample clipped on 3 channels counts 3). */
  values: number;
}

interface QueuedAnnotation {
  tal: Uint8Array;
}

function invalid(message: string, details?: Record<string, unknown>): FormatError {
  return new FormatError(message, details);
}

export class EdfWriter {
  readonly path: string;
  readonly format: 'edf' | 'bdf';
  readonly sampleRate: number;
  readonly channelCount: number;
  readonly samplesPerRecord: number;
  readonly recordDurationSeconds: number;
  readonly headerBytes: number;
  readonly recordBytes: number;
  /** Samples (per channel) clamped to the digital range, or non-finite. */
  clippedSamples = 0;
  /** The clipped runs since the last takeClipRuns. */
  private clipRuns: ClipRun[] = [];
  /** Whole records in the file, covered by the header's count (after the last flush). */
  recordsWritten = 0;
  private fd: number | undefined;
  private readonly bytesPerSample: 2 | 3;
  private readonly digitalMin: number;
  private readonly digitalMax: number;
  private readonly gains: Float64Array;
  private readonly physicalMins: Float64Array;
  private readonly annotationOffset: number;
  private readonly annotationBytes: number;
  private readonly recordTicks: number;
  private readonly startOffsetTicks: number;
  private readonly flushRecords: number;
  private record: Buffer;
  private fill = 0;
  private pending: Buffer[] = [];
  private queue: QueuedAnnotation[] = [];
  private samples = 0;
  private readonly lastDigital: Int32Array;

  private constructor(path: string, options: EdfWriterOptions) {
    const { format, sampleRate, channels } = options;
    // Checked at run time too: options may come from untyped JSON.
    if (!(['edf', 'bdf'] as unknown[]).includes(format))
      throw invalid(`Unknown format "${format as string}".`);
    if (channels.length < 1 || channels.length > 639) {
      throw invalid(`An EDF/BDF file holds 1 to 639 channels, not ${channels.length}.`);
    }
    const start = options.startTime;
    if (Number.isNaN(start.getTime())) throw invalid('The start time is not a valid date.');
    const spec = DIGITAL_RANGE[format];
    this.path = path;
    this.format = format;
    this.sampleRate = sampleRate;
    this.channelCount = channels.length;
    this.bytesPerSample = spec.bytes;
    this.digitalMin = spec.min;
    this.digitalMax = spec.max;
    const annotationSamples = Math.ceil(ANNOTATION_BYTES_TARGET / spec.bytes);
    this.annotationBytes = annotationSamples * spec.bytes;
    const layout = {
      sampleRate,
      bytesPerSampleFrame: channels.length * spec.bytes,
      annotationBytes: this.annotationBytes,
    };
    const duration =
      options.recordDurationSeconds === undefined
        ? chooseRecordDuration(layout)
        : checkRecordDuration(layout, options.recordDurationSeconds);
    this.samplesPerRecord = duration.samplesPerRecord;
    this.recordDurationSeconds = duration.seconds;
    this.recordTicks = secondsToTicks(duration.seconds);
    const startMs = start.getTime();
    const startSecondMs = Math.floor(startMs / 1000) * 1000;
    this.startOffsetTicks = (startMs - startSecondMs) * (TICKS_PER_SECOND / 1000);
    this.flushRecords = Math.max(
      1,
      Math.floor((options.flushIntervalSeconds ?? 1) / duration.seconds + 1e-9),
    );

    const plan = planSignals(format, channels, duration.samplesPerRecord, annotationSamples);
    this.gains = plan.gains;
    this.physicalMins = plan.physicalMins;
    const startSecond = new Date(startSecondMs);
    const header = buildHeader({
      format,
      patient: patientField(options.patient),
      recording: recordingField(startSecond, options.recording),
      startSecond,
      recordDuration: String(duration.seconds),
      signals: plan.signals,
    });
    this.headerBytes = header.length;
    this.annotationOffset = channels.length * duration.samplesPerRecord * spec.bytes;
    this.recordBytes = this.annotationOffset + this.annotationBytes;
    this.record = Buffer.alloc(this.recordBytes);
    this.lastDigital = new Int32Array(channels.length);

    const fd = openSync(path, options.overwrite === true ? 'w' : 'wx');
    try {
      writeSync(fd, header, 0, header.length, 0);
      fdatasyncSync(fd);
    } catch (error) {
      // Leave no header-less file behind (the name was free: 'wx', or is being replaced).
      closeSync(fd);
      rmSync(path, { force: true });
      throw error;
    }
    this.fd = fd;
  }

  /** Creates the file (refusing an existing one unless `overwrite`) and writes its header. */
  static open(path: string, options: EdfWriterOptions): EdfWriter {
    return new EdfWriter(path, options);
  }

  /** Bytes in the file: header plus flushed records. */
  get bytesWritten(): number {
    return this.headerBytes + this.recordsWritten * this.recordBytes;
  }

  /** Seconds of samples accepted by `write` (flushed or not). */
  get durationSeconds(): number {
    return this.samples / this.sampleRate;
  }

  /** Samples per channel accepted by `write`. */
  get samplesWritten(): number {
    return this.samples;
  }

  private quantize(value: number, channel: number): number {
    const pmin = this.physicalMins[channel] as number;
    const gain = this.gains[channel] as number;
    let d = Math.round((Number.isNaN(value) ? 0 - pmin : value - pmin) * gain + this.digitalMin);
    if (!Number.isFinite(value)) this.clippedSamples++;
    if (d < this.digitalMin) {
      d = this.digitalMin;
      if (Number.isFinite(value)) this.clippedSamples++;
    } else if (d > this.digitalMax) {
      d = this.digitalMax;
      if (Number.isFinite(value)) this.clippedSamples++;
    }
    return d;
  }

  private put(channel: number, digital: number): void {
    const at = (channel * this.samplesPerRecord + this.fill) * this.bytesPerSample;
    // Little-endian two's complement, byte by byte (Buffer's checked writers cost more per sample).
    const record = this.record;
    record[at] = digital & 0xff;
    record[at + 1] = (digital >> 8) & 0xff;
    if (this.bytesPerSample === 3) record[at + 2] = (digital >> 16) & 0xff;
  }

  /**
   * Appends `samples` samples of interleaved data (`data[s * channels + c]`, physical units).
   * Flushes by itself when `flushIntervalSeconds` of records are pending.
   */
  write(data: Float32Array | Float64Array, samples: number): void {
    this.assertOpen();
    const C = this.channelCount;
    if (!Number.isInteger(samples) || samples < 0 || samples * C > data.length) {
      throw invalid(
        `write: ${samples} samples of ${C} channels need ${samples * C} values, got ${data.length}.`,
      );
    }
    for (let s = 0; s < samples; s++) {
      const clippedBefore = this.clippedSamples;
      for (let c = 0; c < C; c++) {
        const d = this.quantize(data[s * C + c] as number, c);
        this.lastDigital[c] = d;
        this.put(c, d);
      }
      if (this.clippedSamples !== clippedBefore) this.noteClip(this.clippedSamples - clippedBefore);
      this.samples++;
      if (++this.fill === this.samplesPerRecord) {
        this.completeRecord();
        // Inside the loop, so a long block never holds more than the cadence in memory.
        if (this.pending.length >= this.flushRecords) this.flush();
      }
    }
  }

  /** The runs of samples with clipped values written since the last call, in order. */
  takeClipRuns(): ClipRun[] {
    const runs = this.clipRuns;
    this.clipRuns = [];
    return runs;
  }

  private noteClip(values: number): void {
    const index = this.samples;
    const last = this.clipRuns[this.clipRuns.length - 1];
    if (last !== undefined && last.last === index - 1) {
      last.last = index;
      last.values += values;
    } else this.clipRuns.push({ first: index, last: index, values });
  }

  /**
   * Queues an annotation at `onsetSeconds` from the first sample; it goes into the next record
   * completed (or later ones when that record's annotation signal is full).
   */
  annotate(onsetSeconds: number, text: string, durationSeconds?: number): void {
    this.assertOpen();
    // 1e9 s (31 years) keeps onsets in plain decimal notation and well inside 2^53 ticks.
    if (!(Math.abs(onsetSeconds) < 1e9))
      throw invalid('An annotation onset must be a number of seconds under 1e9.');
    if (durationSeconds !== undefined && !(durationSeconds >= 0 && durationSeconds < 1e9)) {
      throw invalid('An annotation duration must be a number of seconds from 0 to 1e9.');
    }
    const clean = truncateUtf8(sanitizeTalText(text), MAX_ANNOTATION_TEXT_BYTES);
    const onset = this.startOffsetTicks + secondsToTicks(onsetSeconds);
    const duration = durationSeconds === undefined ? undefined : secondsToTicks(durationSeconds);
    this.queue.push({ tal: encodeTal(onset, duration, [clean]) });
  }

  /** Fills the annotation signal and moves the record to the pending list. */
  private completeRecord(): void {
    const index = this.recordsWritten + this.pending.length;
    const area = this.record.subarray(this.annotationOffset);
    area.fill(0);
    const keeping = encodeTimeKeepingTal(this.startOffsetTicks + index * this.recordTicks);
    area.set(keeping, 0);
    let used = keeping.length;
    while (this.queue.length > 0) {
      const next = this.queue[0] as QueuedAnnotation;
      // Keep one 0x00 spare after the last TAL so the list ends unambiguously.
      if (used + next.tal.length > area.length - 1) break;
      area.set(next.tal, used);
      used += next.tal.length;
      this.queue.shift();
    }
    this.pending.push(this.record);
    this.record = Buffer.alloc(this.recordBytes);
    this.fill = 0;
  }

  /**
   * Appends the pending whole records, syncs, patches the record count, syncs. The record being
   * filled stays in memory.
   */
  flush(): void {
    this.assertOpen();
    const fd = this.fd as number;
    if (this.pending.length === 0) return;
    const chunk = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending);
    try {
      writeFully(fd, chunk, this.bytesWritten);
      fdatasyncSync(fd);
    } catch (error) {
      // A full disk (ENOSPC) or an I/O error: cut what was half written, so the file stays the
      // valid file of the last flush; the records stay pending for a retry.
      try {
        ftruncateSync(fd, this.bytesWritten);
      } catch {
        // The truncation failing too leaves a torn tail that repairEdf removes.
      }
      throw error;
    }
    this.recordsWritten += this.pending.length;
    this.pending = [];
    writeFully(fd, Buffer.from(String(this.recordsWritten).padEnd(8, ' '), 'latin1'), RECORD_COUNT_OFFSET);
    fdatasyncSync(fd);
  }

  /** Completes the last record (see the file comment), flushes, syncs and closes the file. */
  close(): void {
    if (this.fd === undefined) return;
    try {
      if (this.samples > 0) {
        const end = this.samples / this.sampleRate;
        if (this.fill > 0 || this.queue.length > 0) this.annotate(end, 'Recording ends');
        while (this.fill > 0 || this.queue.length > 0) this.padRecord();
      }
      this.flush();
    } finally {
      // Closed even when the last flush fails (full disk): the file keeps its last valid state.
      closeSync(this.fd);
      this.fd = undefined;
    }
  }

  /** Completes the current record with each channel's last value. */
  private padRecord(): void {
    while (this.fill < this.samplesPerRecord) {
      for (let c = 0; c < this.channelCount; c++) this.put(c, this.lastDigital[c] as number);
      this.fill++;
    }
    this.completeRecord();
  }

  private assertOpen(): void {
    if (this.fd === undefined) throw new Error(`EdfWriter for ${this.path} is closed`);
  }
}

function writeFully(fd: number, buf: Buffer, position: number): void {
  let done = 0;
  while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done, position + done);
}
