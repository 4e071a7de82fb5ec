/**
 * One file segment of a recording: the EDF/BDF or CSV writer of formats/, the metadata sidecar
 * (recordings/sidecar.ts) and, for CSV, the annotations file `<stem>.events.csv` (a header line
 * `onset,duration,text`: seconds from the first sample, seconds or empty, the text; each event is
 * appended and fdatasynced at once). EDF/BDF annotations go in the file's annotation signal.
 *
 * No reader ever sees a recording without data (EDFlib and MNE refuse an EDF of 0 records):
 * 1. open: the file is created, header written and synced, under its hidden pending name
 *    `.<name>.tmp` (recordings/paths.ts); then the sidecar is written with `complete: false`,
 *    which claims the name (the recorder skips it for new segments);
 * 2. publish, once the writer's first flush put a whole data record (CSV: a line) on disk: the
 *    file is renamed to `<name>` (refused if that name appeared meanwhile: never overwriting) and
 *    the directory synced; a CSV's events file is created then with the events held until then;
 * 3. close: the writer completes the file, the sidecar says `complete: true`.
 * A failure before publish (a full disk in the first second) removes the pending file and the
 * sidecar, so nothing is left under the name; a kill before publish leaves both hidden, and
 * startup repair (recordings/repair.ts) removes them.
 */
import { closeSync, existsSync, fdatasyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { csvField } from '../../formats/csv-writer.js';
import { CsvWriter } from '../../formats/csv-writer.js';
import { type ClipRun, EdfWriter, type NoValueRun } from '../../formats/edf-writer.js';
import { FormatError } from '../../formats/format-error.js';
import { recordedLabel } from '../../formats/labels.js';
import { HeadsetdError } from '../../core/errors.js';
import { eventsNameOf, pendingPath, recordingPath } from '../../recordings/paths.js';
import {
  type RecordingFormat,
  type RecordingMeta,
  removeSidecar,
  syncDirectory,
  writeSidecar,
} from '../../recordings/sidecar.js';
import { errorMessage } from '../../core/error-message.js';
import { MICROVOLT } from '../../core/frame.js';
import { edfPhysicalDimension } from '../../formats/physical-dimension.js';

export interface SegmentSpec {
  dir: string;
  name: string;
  format: RecordingFormat;
  channels: readonly string[];
  sampleRate: number;
  /** ms since the epoch: the first sample's time. */
  startTime: number;
  /** The physical limits of EDF/BDF channels in µV (./recorder-range.ts). */
  physicalMin: number;
  physicalMax: number;
  /** Each channel's unit, when some channel is not in µV (core/frame.ts `units`). */
  units?: readonly string[];
  /** The physical limits of EDF/BDF channels in each other unit of `units`. */
  unitLimits?: Readonly<Record<string, { readonly min: number; readonly max: number }>>;
  includeTimestamps: boolean;
  streamId: string;
  nodeId: string;
}

/**
 * The CSV annotations file: created on the first event once the recording is published (events
 * before that are held), then appended and synced per event.
 */
class EventsFile {
  private fd: number | undefined;
  private published = false;
  private held = '';
  constructor(readonly path: string) {}

  append(onsetSeconds: number, durationSeconds: number | undefined, text: string): void {
    const onset = String(Math.round(onsetSeconds * 1e6) / 1e6);
    const duration = durationSeconds === undefined ? '' : String(durationSeconds);
    this.held += `${onset},${duration},${csvField(text.replace(/[\r\n]+/g, ' '))}\n`;
    if (this.published) this.write();
  }

  /** The recording is visible now: the file may exist. */
  publish(): void {
    this.published = true;
    if (this.held !== '') this.write();
  }

  private write(): void {
    if (this.fd === undefined) {
      this.fd = openSync(this.path, 'wx');
      this.held = `onset,duration,text\n${this.held}`;
    }
    writeSync(this.fd, this.held);
    this.held = '';
    fdatasyncSync(this.fd);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** A writer's refusal (formats/format-error.ts) as the service answers it: 422 validation_failed. */
function catalogued<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof FormatError)
      throw new HeadsetdError('validation_failed', error.message, error.details);
    throw error;
  }
}

function openWriter(path: string, spec: SegmentSpec, channels: string[]): EdfWriter | CsvWriter {
  // `overwrite`: the pending name is hidden and this recorder's own (a stale one is a crash's).
  const unitOf = (c: number): string => spec.units?.[c] ?? MICROVOLT;
  if (spec.format === 'csv') {
    return CsvWriter.open(path, {
      // A channel in another unit than µV says it in its column's name; all-µV files keep their header.
      channels: channels.map((label, c) => (unitOf(c) === MICROVOLT ? label : `${label} (${unitOf(c)})`)),
      sampleRate: spec.sampleRate,
      includeTimestamps: spec.includeTimestamps,
      overwrite: true,
    });
  }
  return EdfWriter.open(path, {
    format: spec.format,
    sampleRate: spec.sampleRate,
    channels: channels.map((label, c) => {
      const unit = unitOf(c);
      const limits =
        unit === MICROVOLT
          ? { min: spec.physicalMin, max: spec.physicalMax }
          : (spec.unitLimits?.[unit] ?? { min: spec.physicalMin, max: spec.physicalMax });
      return {
        label,
        physicalDimension: edfPhysicalDimension(unit),
        physicalMin: limits.min,
        physicalMax: limits.max,
      };
    }),
    startTime: spec.startTime,
    recording: `stream ${spec.streamId} node ${spec.nodeId}`,
    overwrite: true,
  });
}

export class RecordingFile {
  readonly name: string;
  readonly spec: SegmentSpec;
  private readonly writer: EdfWriter | CsvWriter;
  private readonly events: EventsFile | undefined;
  private readonly meta: RecordingMeta;
  private readonly pending: string;
  private published = false;
  private closed = false;

  private constructor(spec: SegmentSpec) {
    this.spec = spec;
    this.name = spec.name;
    this.pending = pendingPath(spec.dir, spec.name);
    // Files carry 10-20 case (`Fp1`, `Cz`), which EEG tools expect; the frames keep the API's names.
    const channels = spec.channels.map(recordedLabel);
    this.writer = catalogued(() => openWriter(this.pending, spec, channels));
    this.events =
      spec.format === 'csv' ? new EventsFile(recordingPath(spec.dir, eventsNameOf(spec.name))) : undefined;
    this.meta = {
      name: spec.name,
      format: spec.format,
      channels,
      ...(spec.units === undefined ? {} : { units: [...spec.units] }),
      sampleRate: spec.sampleRate,
      created: new Date(spec.startTime).toISOString(),
      complete: false,
      streamId: spec.streamId,
      nodeId: spec.nodeId,
      ...(spec.format === 'csv' ? { eventsFile: eventsNameOf(spec.name) } : {}),
    };
    try {
      writeSidecar(spec.dir, this.meta);
    } catch (error) {
      this.discard();
      throw error;
    }
  }

  /** Creates the segment (hidden until its first record is on disk); see the file comment. */
  static open(spec: SegmentSpec): RecordingFile {
    return new RecordingFile(spec);
  }

  /** Appends a frame's samples (interleaved, µV); `timestamp` feeds the CSV timestamp column. */
  write(data: Float32Array, samples: number, timestamp: number): void {
    const writer = this.writer;
    catalogued(() => {
      if (writer instanceof CsvWriter) writer.write(data, samples, timestamp);
      else writer.write(data, samples);
    });
    if (!this.published && this.flushedUnits > 0) this.publish();
  }

  /** An annotation at `onsetSeconds` from the first sample. */
  annotate(onsetSeconds: number, text: string, durationSeconds?: number): void {
    if (this.events !== undefined) this.events.append(onsetSeconds, durationSeconds, text);
    else {
      const writer = this.writer as EdfWriter;
      catalogued(() => {
        writer.annotate(onsetSeconds, text, durationSeconds);
      });
    }
  }

  /** Samples per channel handed to the writer. */
  get samples(): number {
    return this.writer.samplesWritten;
  }

  /** Whole records (CSV: lines) on disk. */
  private get flushedUnits(): number {
    const w = this.writer;
    return w instanceof EdfWriter ? w.recordsWritten : w.rowsWritten;
  }

  /** Seconds of samples safely on disk (after the last flush). */
  get flushedSeconds(): number {
    const w = this.writer;
    return w instanceof EdfWriter
      ? w.recordsWritten * w.recordDurationSeconds
      : w.rowsWritten / this.spec.sampleRate;
  }

  /** Samples clamped to the physical range (EDF/BDF). */
  get clippedSamples(): number {
    return this.writer instanceof EdfWriter ? this.writer.clippedSamples : 0;
  }

  /** Values of no value (NaN, ±Infinity) written as the digital minimum (EDF/BDF; CSV writes them as text). */
  get noValueSamples(): number {
    return this.writer instanceof EdfWriter ? this.writer.noValueSamples : 0;
  }

  /** Where values had no value since the last call (EDF/BDF; none in CSV). */
  takeNoValueRuns(): NoValueRun[] {
    return this.writer instanceof EdfWriter ? this.writer.takeNoValueRuns() : [];
  }

  /** The channels' labels as the file writes them. */
  get labels(): readonly string[] {
    return this.meta.channels;
  }

  /** Where values were clipped since the last call (EDF/BDF; none in CSV). */
  takeClipRuns(): ClipRun[] {
    return this.writer instanceof EdfWriter ? this.writer.takeClipRuns() : [];
  }

  /** Clean end: the writer completes and syncs the file, the sidecar says `complete: true`. */
  close(): void {
    if (this.closed) return;
    try {
      this.writer.close();
      if (!this.published && this.flushedUnits > 0) this.publish();
    } catch (error) {
      this.abort(errorMessage(error));
      throw error;
    }
    this.closed = true;
    this.events?.close();
    if (!this.published) {
      // Not a sample was written: there is no recording to keep.
      this.discard();
      return;
    }
    writeSidecar(this.spec.dir, {
      ...this.meta,
      complete: true,
      durationSeconds: this.writer.samplesWritten / this.spec.sampleRate,
    });
  }

  /**
   * End after a write failed (disk full): the file keeps its last flushed state (the writers cut
   * what was half written) and the sidecar stays `complete: false` with the reason; a file with
   * no whole record yet is removed with its sidecar. Never throws. True when a file is kept.
   */
  abort(reason: string): boolean {
    if (this.closed) return this.published;
    this.closed = true;
    try {
      this.writer.close();
    } catch {
      // The last flush failing again is expected on a full disk; the file is valid at its last flush.
    }
    try {
      if (!this.published && this.flushedUnits > 0) this.publish();
    } catch {
      // Left unpublished: removed below.
    }
    this.events?.close();
    if (!this.published) {
      this.discard();
      return false;
    }
    try {
      writeSidecar(this.spec.dir, {
        ...this.meta,
        complete: false,
        durationSeconds: this.flushedSeconds,
        stoppedBy: reason,
      });
    } catch {
      // No room even for the sidecar: the one written at open still says `complete: false`.
    }
    return true;
  }

  /** Gives the file its name (see the file comment). */
  private publish(): void {
    const target = recordingPath(this.spec.dir, this.name);
    if (existsSync(target)) {
      throw new HeadsetdError(
        'validation_failed',
        `the recording "${this.name}" appeared while it was being started; it was not replaced.`,
      );
    }
    renameSync(this.pending, target);
    syncDirectory(this.spec.dir);
    this.published = true;
    this.events?.publish();
  }

  /** Removes what an unpublished segment left: the pending file and the sidecar. */
  private discard(): void {
    try {
      this.writer.close();
    } catch {
      // Closing is all that matters here; the file goes.
    }
    rmSync(this.pending, { force: true });
    removeSidecar(this.spec.dir, this.name);
  }
}
