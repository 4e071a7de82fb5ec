/**
 * Reader of EDF, EDF+C/D, BDF and BDF+C/D files. Opens a file by path, parses its header
 * (./edf-header.ts) and reads data records on demand with positioned reads, so a 1 GB recording
 * costs one record of memory at a time.
 *
 * Scaling is the EDF spec's exact linear map:
 *   physical = (digital − digitalMin) × (physicalMax − physicalMin) / (digitalMax − digitalMin) + physicalMin
 *
 * Record count: the header's field, unless it is -1 (unknown, EDF+ §2.1.4: still being written) or
 * larger than what the file's length holds (a torn file): then the number of whole records the file
 * holds. Bytes after the last whole record are ignored. Both cases are reported in `warnings`.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { FormatError } from './format-error.js';
import {
  type EdfFormat,
  type EdfHeader,
  type EdfSignalHeader,
  type EdfVariant,
  FIXED_HEADER_BYTES,
  parseEdfHeader,
  signalCountOf,
} from './edf-header.js';
import { parseTals } from './edf-tal.js';

export type { EdfFormat, EdfHeader, EdfSignalHeader, EdfVariant } from './edf-header.js';

/** A user annotation (not a time-keeping TAL). Times in seconds from the first sample. */
export interface EdfAnnotation {
  onset: number;
  /** Seconds; undefined when the TAL gives none. */
  duration: number | undefined;
  text: string;
}

function readError(path: string, reason: string): FormatError {
  return new FormatError(`Not a readable EDF/BDF file (${path}): ${reason}.`);
}

export class EdfReader {
  readonly path: string;
  readonly header: EdfHeader;
  /** Format and EDF+ variant: `{format: 'bdf', variant: 'plain'}` for a BioSemi file. */
  readonly kind: { format: EdfFormat; variant: EdfVariant };
  /** Whole data records this reader serves (see the file comment for the rule). */
  readonly recordCount: number;
  /** Data (non-annotation) signals, in file order: the order of `readRecord`'s arrays. */
  readonly signals: readonly EdfSignalHeader[];
  readonly annotationSignals: readonly EdfSignalHeader[];
  /**
   * Seconds from the header's start second to the first sample: the onset of the first record's
   * time-keeping TAL (EDF+ §2.2.4, sub-second start), 0 without annotation signal.
   */
  readonly startOffset: number;
  /** Tolerated flaws, one sentence each. */
  readonly warnings: string[];
  private fd: number | undefined;
  private annotationCache: { annotations: EdfAnnotation[]; recordOnsets: Float64Array } | undefined;

  private constructor(path: string, fd: number, header: EdfHeader, recordCount: number, warnings: string[]) {
    this.path = path;
    this.fd = fd;
    this.header = header;
    this.kind = { format: header.format, variant: header.variant };
    this.recordCount = recordCount;
    this.signals = header.signals.filter((s) => !s.isAnnotation);
    this.annotationSignals = header.signals.filter((s) => s.isAnnotation);
    this.warnings = warnings;
    this.startOffset = recordCount > 0 && this.annotationSignals.length > 0 ? this.firstRecordOnset() : 0;
  }

  /** Opens a file; throws a FormatError with the reason when it cannot be read. */
  static open(path: string): EdfReader {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const fixed = Buffer.alloc(FIXED_HEADER_BYTES);
      if (size < FIXED_HEADER_BYTES)
        throw readError(path, `${size} bytes is shorter than the 256-byte header`);
      readSync(fd, fixed, 0, FIXED_HEADER_BYTES, 0);
      const ns = signalCountOf(fixed);
      const headerBytes = FIXED_HEADER_BYTES * (ns + 1);
      if (size < headerBytes)
        throw readError(path, `${size} bytes is shorter than the header of ${ns} signals`);
      const bytes = Buffer.alloc(headerBytes);
      readSync(fd, bytes, 0, headerBytes, 0);
      const header = parseEdfHeader(bytes);
      const warnings = [...header.warnings];
      const available = Math.floor((size - headerBytes) / header.recordBytes);
      let recordCount = header.recordCountField;
      if (recordCount === -1) {
        warnings.push(`record count is -1 (unknown); the file holds ${available} whole records`);
        recordCount = available;
      } else if (recordCount > available) {
        warnings.push(
          `header says ${recordCount} records but the file holds ${available}; reading ${available}`,
        );
        recordCount = available;
      } else if (headerBytes + recordCount * header.recordBytes < size) {
        warnings.push(
          `${size - headerBytes - recordCount * header.recordBytes} bytes after the last record ignored`,
        );
      }
      return new EdfReader(path, fd, header, recordCount, warnings);
    } catch (error) {
      closeSync(fd);
      // Header errors carry no path: add it, so the message says which file is broken.
      if (error instanceof FormatError && !error.message.includes(path)) {
        throw new FormatError(`${path}: ${error.message}`, error.details);
      }
      throw error;
    }
  }

  /** Start of the first sample: header start second plus the sub-second offset. */
  get startTime(): Date {
    return new Date(this.header.startSecond.getTime() + Math.round(this.startOffset * 1000));
  }

  /** Seconds of data: records × record duration (gaps of EDF+D not counted). */
  get durationSeconds(): number {
    return this.recordCount * this.header.recordDuration;
  }

  private checkRecord(i: number): number {
    if (this.fd === undefined) throw new Error('EdfReader is closed');
    if (!Number.isInteger(i) || i < 0 || i >= this.recordCount) {
      throw new RangeError(`record ${i} is outside 0..${this.recordCount - 1}`);
    }
    return this.fd;
  }

  /** Bytes [start, start + length) of record i. */
  private readBytes(i: number, start: number, length: number): Buffer {
    const fd = this.checkRecord(i);
    const buf = Buffer.alloc(length);
    const got = readSync(fd, buf, 0, length, this.header.headerBytes + i * this.header.recordBytes + start);
    if (got !== length) throw readError(this.path, `record ${i} is cut short`);
    return buf;
  }

  /** Raw bytes of record i (all signals). */
  private readRecordBytes(i: number): Buffer {
    return this.readBytes(i, 0, this.header.recordBytes);
  }

  /** Raw bytes of one signal in record i: a positioned read of just that slice. */
  private readSignalBytes(i: number, s: EdfSignalHeader): Buffer {
    const start = this.header.signalOffsets[s.index] ?? 0;
    return this.readBytes(i, start, s.samplesPerRecord * this.header.bytesPerSample);
  }

  /** Decodes one signal's samples; `base` is the signal's byte offset inside `buf`. */
  private decode(buf: Buffer, base: number, n: number, out: Int32Array): void {
    if (this.header.bytesPerSample === 2) {
      for (let k = 0; k < n; k++) out[k] = buf.readInt16LE(base + 2 * k);
    } else {
      for (let k = 0; k < n; k++) out[k] = buf.readIntLE(base + 3 * k, 3);
    }
  }

  /** Digital values of record i, one Int32Array per data signal. */
  readRecordDigital(i: number): Int32Array[] {
    const buf = this.readRecordBytes(i);
    return this.signals.map((s) => {
      const out = new Int32Array(s.samplesPerRecord);
      this.decode(buf, this.header.signalOffsets[s.index] ?? 0, s.samplesPerRecord, out);
      return out;
    });
  }

  /** Physical values of record i, one Float64Array per data signal (order of `signals`). */
  readRecord(i: number): Float64Array[] {
    return this.readRecordDigital(i).map((digital, k) =>
      toPhysical(digital, this.signals[k] as EdfSignalHeader),
    );
  }

  /**
   * Physical values of one data signal over records [firstRecord, firstRecord + records).
   * @param signal index into `signals`
   */
  readSignal(signal: number, firstRecord = 0, records = this.recordCount - firstRecord): Float64Array {
    const s = this.signals[signal];
    if (s === undefined) throw new RangeError(`signal ${signal} is outside 0..${this.signals.length - 1}`);
    const out = new Float64Array(records * s.samplesPerRecord);
    const digital = new Int32Array(s.samplesPerRecord);
    for (let r = 0; r < records; r++) {
      this.decode(this.readSignalBytes(firstRecord + r, s), 0, s.samplesPerRecord, digital);
      out.set(toPhysical(digital, s), r * s.samplesPerRecord);
    }
    return out;
  }

  /** The bytes of every annotation signal of record i, concatenated. */
  private annotationBytes(i: number): Uint8Array {
    const parts = this.annotationSignals.map((s) => this.readSignalBytes(i, s));
    return parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts);
  }

  private firstRecordOnset(): number {
    const first = parseTals(this.annotationBytes(0)).tals[0];
    return first?.texts[0] === '' ? first.onset : 0;
  }

  private scanAnnotations(): { annotations: EdfAnnotation[]; recordOnsets: Float64Array } {
    if (this.annotationCache) return this.annotationCache;
    const annotations: EdfAnnotation[] = [];
    const recordOnsets = new Float64Array(this.recordCount);
    for (let r = 0; r < this.recordCount; r++) {
      recordOnsets[r] = r * this.header.recordDuration;
      if (this.annotationSignals.length === 0) continue;
      const { tals, skipped } = parseTals(this.annotationBytes(r));
      if (skipped > 0) this.warnings.push(`record ${r}: ${skipped} malformed TAL(s) skipped`);
      tals.forEach((tal, k) => {
        const onset = tal.onset - this.startOffset;
        let texts = tal.texts;
        // The record's first TAL keeps time (EDF+ §2.2.4); texts after its empty one are annotations.
        if (k === 0 && texts[0] === '') {
          recordOnsets[r] = onset;
          texts = texts.slice(1);
        }
        for (const text of texts) annotations.push({ onset, duration: tal.duration, text });
      });
    }
    this.annotationCache = { annotations, recordOnsets };
    return this.annotationCache;
  }

  /** Every annotation of the file (reads the annotation signal of all records once, then cached). */
  readAnnotations(): EdfAnnotation[] {
    return this.scanAnnotations().annotations;
  }

  /**
   * Start of each record in seconds from the first sample: from the time-keeping TALs in EDF+/BDF+
   * (gaps show in EDF+D), else record index × record duration.
   */
  recordOnsets(): Float64Array {
    return this.scanAnnotations().recordOnsets;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** The EDF spec's linear map from digital to physical values. */
export function toPhysical(digital: Int32Array, s: EdfSignalHeader): Float64Array {
  const gain = (s.physicalMax - s.physicalMin) / (s.digitalMax - s.digitalMin);
  const out = new Float64Array(digital.length);
  for (let k = 0; k < digital.length; k++)
    out[k] = ((digital[k] as number) - s.digitalMin) * gain + s.physicalMin;
  return out;
}
