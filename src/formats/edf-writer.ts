/**
 * Incremental, crash-safe writer of EDF+C (16-bit) and BDF+C (24-bit) files.
 *
 * Layout: the channels in the given order, then one annotation signal (`EDF Annotations` /
 * `BDF Annotations`). Its size: ANNOTATION_BYTES_PER_SECOND of the record's duration (1 KiB a
 * second: room for the time-keeping TAL and typically 25 short markers a second), at least
 * ANNOTATION_BYTES_TARGET (with which the record duration is chosen), at most what keeps the
 * record within the size the duration rule allows.
 * Digital range: the format's full range (EDF −32768..32767, BDF −8388608..8388607), whose
 * minimum is the code of "no value": NaN and ±Infinity are written as it (counted in
 * `noValueSamples`; `takeNoValueRuns` tells where and on which channels), and no finite value is
 * ever written as it. The header's physical minimum lies one step below the channel's
 * `physicalMin` (edf-writer-header.ts, reservedPhysicalMin), so every value from `physicalMin` to
 * `physicalMax` has a code of its own. Finite values are mapped with the exact EDF scaling,
 * rounded to nearest and clamped to the digital minimum + 1 … maximum; clamped values are counted
 * in `clippedSamples`, and `takeClipRuns` tells where. Record duration: ./edf-record-duration.ts.
 *
 * Start time: the header's date and time fields hold the UTC clock (no time-zone ambiguity);
 * the milliseconds go in the first time-keeping TAL (EDF+ §2.2.4). Annotation onsets passed to
 * `annotate` are seconds from the first sample.
 *
 * Annotations: queued, placed in the next record completed; what does not fit one record's
 * annotation signal carries to the following records (never dropped). A text longer than
 * MAX_ANNOTATION_TEXT_BYTES is cut to that length (UTF-8 safe); control characters become spaces.
 * Annotations never lengthen the file: those still queued at close are written into the unused
 * annotation bytes of the records already on disk, latest first (EDF+ lets a TAL of any onset sit
 * in any record). Only when every record is full do records of "no value" follow (every sample
 * the digital minimum: nothing a reader could take for a voltage), as many as the rest needs.
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
 * real one). No real sample is altered. A file that never got a sample keeps 0 records.
 */
import { closeSync, fdatasyncSync, ftruncateSync, openSync, rmSync } from 'node:fs';
import { FormatError } from './format-error.js';
import { writeFully } from './write-fully.js';
import { RECORD_COUNT_OFFSET } from './edf-header.js';
import {
  checkRecordDuration,
  chooseRecordDuration,
  HARD_MAX_RECORD_BYTES,
  MAX_RECORD_BYTES,
} from './edf-record-duration.js';
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

/** Bytes of the annotation signal per record at least (the record duration is chosen with it). */
export const ANNOTATION_BYTES_TARGET = 512;
/** Bytes of annotation signal per second of data the writer gives where the record's size allows. */
export const ANNOTATION_BYTES_PER_SECOND = 1024;
/** Longest annotation text written (UTF-8 bytes); longer texts are cut. */
export const MAX_ANNOTATION_TEXT_BYTES = 400;

export interface EdfWriterOptions {
  format: 'edf' | 'bdf';
  /** Hz; see ./edf-record-duration.ts for the rates accepted. */
  sampleRate: number;
  channels: EdfChannel[];
  /** Time of the first sample: ms since the epoch (its fraction kept, to 100 ns), or a Date (whole ms). */
  startTime: number | Date;
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

/** Consecutive samples with at least one value of no value (NaN, ±Infinity). */
export interface NoValueRun extends ClipRun {
  /** Indices of the channels with no value somewhere in the run, ascending. */
  channels: number[];
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
  /** Finite values beyond the channel's physical limits, written at the nearest limit. */
  clippedSamples = 0;
  /** Values of no value (NaN, ±Infinity), written as the digital minimum. */
  noValueSamples = 0;
  /** The clipped runs since the last takeClipRuns. */
  private clipRuns: ClipRun[] = [];
  /** The runs of no value since the last takeNoValueRuns. */
  private noValueRuns: NoValueRun[] = [];
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
  /** Bytes of each completed record's annotation signal in use (TALs), by record index. */
  private annotationUsed: number[] = [];
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
    const startMs = typeof options.startTime === 'number' ? options.startTime : options.startTime.getTime();
    if (Number.isNaN(new Date(startMs).getTime())) throw invalid('The start time is not a valid date.');
    const spec = DIGITAL_RANGE[format];
    this.path = path;
    this.format = format;
    this.sampleRate = sampleRate;
    this.channelCount = channels.length;
    this.bytesPerSample = spec.bytes;
    this.digitalMin = spec.min;
    this.digitalMax = spec.max;
    const layout = {
      sampleRate,
      bytesPerSampleFrame: channels.length * spec.bytes,
      annotationBytes: Math.ceil(ANNOTATION_BYTES_TARGET / spec.bytes) * spec.bytes,
    };
    const duration =
      options.recordDurationSeconds === undefined
        ? chooseRecordDuration(layout)
        : checkRecordDuration(layout, options.recordDurationSeconds);
    // Then more room for annotations, the duration unchanged, as far as the record's size allows.
    const wanted = Math.max(layout.annotationBytes, ANNOTATION_BYTES_PER_SECOND * duration.seconds);
    const largest =
      (options.recordDurationSeconds === undefined ? MAX_RECORD_BYTES : HARD_MAX_RECORD_BYTES) -
      duration.samplesPerRecord * layout.bytesPerSampleFrame;
    const annotationSamples = Math.floor(
      Math.min(wanted, Math.max(largest, layout.annotationBytes)) / spec.bytes,
    );
    this.annotationBytes = annotationSamples * spec.bytes;
    this.samplesPerRecord = duration.samplesPerRecord;
    this.recordDurationSeconds = duration.seconds;
    this.recordTicks = secondsToTicks(duration.seconds);
    const startSecondMs = Math.floor(startMs / 1000) * 1000;
    // Whole ticks of 100 ns (a frame's time is fractional ms), within the start's second.
    this.startOffsetTicks = Math.min(TICKS_PER_SECOND - 1, Math.round((startMs - startSecondMs) * 1e4));
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
      writeFully(fd, header, 0);
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

  /** A finite value's code: its nearest step, clamped to digitalMin + 1 … digitalMax (counted). */
  private quantize(value: number, channel: number): number {
    const pmin = this.physicalMins[channel] as number;
    const gain = this.gains[channel] as number;
    let d = Math.round((value - pmin) * gain + this.digitalMin);
    if (d <= this.digitalMin) {
      d = this.digitalMin + 1;
      this.clippedSamples++;
    } else if (d > this.digitalMax) {
      d = this.digitalMax;
      this.clippedSamples++;
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
      let missing: number[] | undefined;
      for (let c = 0; c < C; c++) {
        const value = data[s * C + c] as number;
        let d: number;
        if (Number.isFinite(value)) d = this.quantize(value, c);
        else {
          // NaN, ±Infinity: the reserved code, never a voltage.
          d = this.digitalMin;
          (missing ??= []).push(c);
        }
        this.lastDigital[c] = d;
        this.put(c, d);
      }
      if (this.clippedSamples !== clippedBefore) this.noteClip(this.clippedSamples - clippedBefore);
      if (missing !== undefined) this.noteNoValue(missing);
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

  /** The runs of samples with values of no value written since the last call, in order. */
  takeNoValueRuns(): NoValueRun[] {
    const runs = this.noValueRuns;
    this.noValueRuns = [];
    return runs;
  }

  private noteNoValue(channels: number[]): void {
    this.noValueSamples += channels.length;
    const index = this.samples;
    const last = this.noValueRuns[this.noValueRuns.length - 1];
    if (last !== undefined && last.last === index - 1) {
      last.last = index;
      last.values += channels.length;
      for (const c of channels) if (!last.channels.includes(c)) last.channels.push(c);
      last.channels.sort((a, b) => a - b);
    } else this.noValueRuns.push({ first: index, last: index, values: channels.length, channels });
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
    this.annotationUsed.push(used);
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
        const padded = this.fill > 0;
        if (padded) {
          this.annotate(end, 'Recording ends');
          this.padRecord();
        }
        this.flush();
        this.backfill();
        if (this.queue.length > 0) {
          // More annotation text than every record of the file holds: records of no value
          // (see the file comment) carry the rest, and the true end is marked.
          if (!padded) this.annotate(end, 'Recording ends');
          while (this.queue.length > 0) this.noValueRecord();
        }
      }
      this.flush();
    } finally {
      // Closed even when the last flush fails (full disk): the file keeps its last valid state.
      closeSync(this.fd);
      this.fd = undefined;
    }
  }

  /**
   * Writes the queued annotations into the unused annotation bytes of records already on disk,
   * latest record first, then syncs. Those bytes are 0x00 after each record's last TAL, so a
   * record read before or after holds a valid list.
   */
  private backfill(): void {
    if (this.queue.length === 0) return;
    const fd = this.fd as number;
    const room = this.annotationBytes - 1; // one 0x00 spare ends the list
    let wrote = false;
    for (let r = this.recordsWritten - 1; r >= 0 && this.queue.length > 0; r--) {
      const used = this.annotationUsed[r] as number;
      const fits: Uint8Array[] = [];
      let end = used;
      this.queue = this.queue.filter(({ tal }) => {
        if (end + tal.length > room) return true;
        fits.push(tal);
        end += tal.length;
        return false;
      });
      if (fits.length === 0) continue;
      const at = this.headerBytes + r * this.recordBytes + this.annotationOffset + used;
      writeFully(fd, Buffer.concat(fits), at);
      this.annotationUsed[r] = end;
      wrote = true;
    }
    if (wrote) fdatasyncSync(fd);
  }

  /** Completes the current record with each channel's last value. */
  private padRecord(): void {
    while (this.fill < this.samplesPerRecord) {
      for (let c = 0; c < this.channelCount; c++) this.put(c, this.lastDigital[c] as number);
      this.fill++;
    }
    this.completeRecord();
  }

  /** A whole record of the digital minimum, "no value", on every channel (for annotations only). */
  private noValueRecord(): void {
    while (this.fill < this.samplesPerRecord) {
      for (let c = 0; c < this.channelCount; c++) this.put(c, this.digitalMin);
      this.fill++;
    }
    this.completeRecord();
  }

  private assertOpen(): void {
    if (this.fd === undefined) throw new Error(`EdfWriter for ${this.path} is closed`);
  }
}
