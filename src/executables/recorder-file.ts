/**
 * One file segment of a recording: the EDF/BDF or CSV writer of formats/, the metadata sidecar
 * (recordings/sidecar.ts) and, for CSV, the annotations file `<stem>.events.csv` (a header line
 * `onset,duration,text`: seconds from the first sample, seconds or empty, the text; each event is
 * appended and fdatasynced at once). EDF/BDF annotations go in the file's annotation signal.
 *
 * Order at open: the data file is created exclusively (never overwriting), then the sidecar is
 * written with `complete: false`; a clean `close` rewrites it with `complete: true`.
 */
import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { csvField } from '../formats/csv-writer.js';
import { CsvWriter } from '../formats/csv-writer.js';
import { EdfWriter } from '../formats/edf-writer.js';
import { eventsNameOf, recordingPath } from '../recordings/paths.js';
import { type RecordingFormat, type RecordingMeta, writeSidecar } from '../recordings/sidecar.js';

export interface SegmentSpec {
  dir: string;
  name: string;
  format: RecordingFormat;
  channels: readonly string[];
  sampleRate: number;
  /** ms since the epoch: the first sample's time. */
  startTime: number;
  /** The physical maximum of EDF/BDF channels (the minimum is its negative), µV. */
  physicalMax: number;
  includeTimestamps: boolean;
  streamId: string;
  nodeId: string;
}

/** Errors that mean the disk (or the file-size limit) is full. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EFBIG' || code === 'EDQUOT';
}

/** The CSV annotations file: created on the first event, appended and synced per event. */
class EventsFile {
  private fd: number | undefined;
  constructor(readonly path: string) {}

  append(onsetSeconds: number, durationSeconds: number | undefined, text: string): void {
    if (this.fd === undefined) {
      this.fd = openSync(this.path, 'wx');
      writeSync(this.fd, 'onset,duration,text\n');
    }
    const onset = String(Math.round(onsetSeconds * 1e6) / 1e6);
    const duration = durationSeconds === undefined ? '' : String(durationSeconds);
    writeSync(this.fd, `${onset},${duration},${csvField(text.replace(/[\r\n]+/g, ' '))}\n`);
    fdatasyncSync(this.fd);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

export class RecordingFile {
  readonly name: string;
  readonly spec: SegmentSpec;
  private readonly writer: EdfWriter | CsvWriter;
  private readonly events: EventsFile | undefined;
  private readonly meta: RecordingMeta;
  private closed = false;

  private constructor(spec: SegmentSpec) {
    this.spec = spec;
    this.name = spec.name;
    const path = recordingPath(spec.dir, spec.name);
    const channels = [...spec.channels];
    if (spec.format === 'csv') {
      this.writer = CsvWriter.open(path, {
        channels,
        sampleRate: spec.sampleRate,
        includeTimestamps: spec.includeTimestamps,
      });
      this.events = new EventsFile(recordingPath(spec.dir, eventsNameOf(spec.name)));
    } else {
      this.writer = EdfWriter.open(path, {
        format: spec.format,
        sampleRate: spec.sampleRate,
        channels: channels.map((label) => ({
          label,
          physicalDimension: 'uV',
          physicalMin: -spec.physicalMax,
          physicalMax: spec.physicalMax,
        })),
        startTime: new Date(spec.startTime),
        recording: `stream ${spec.streamId} node ${spec.nodeId}`,
      });
    }
    this.meta = {
      name: spec.name,
      format: spec.format,
      channels,
      sampleRate: spec.sampleRate,
      created: new Date(spec.startTime).toISOString(),
      complete: false,
      streamId: spec.streamId,
      nodeId: spec.nodeId,
      ...(spec.format === 'csv' ? { eventsFile: eventsNameOf(spec.name) } : {}),
    };
    writeSidecar(spec.dir, this.meta);
  }

  /** Creates the segment's files (refusing an existing name); see the file comment. */
  static open(spec: SegmentSpec): RecordingFile {
    return new RecordingFile(spec);
  }

  /** Appends a frame's samples (interleaved, µV); `timestamp` feeds the CSV timestamp column. */
  write(data: Float32Array, samples: number, timestamp: number): void {
    if (this.writer instanceof CsvWriter) this.writer.write(data, samples, timestamp);
    else this.writer.write(data, samples);
  }

  /** An annotation at `onsetSeconds` from the first sample. */
  annotate(onsetSeconds: number, text: string, durationSeconds?: number): void {
    if (this.events !== undefined) this.events.append(onsetSeconds, durationSeconds, text);
    else (this.writer as EdfWriter).annotate(onsetSeconds, text, durationSeconds);
  }

  /** Samples per channel handed to the writer. */
  get samples(): number {
    return this.writer.samplesWritten;
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

  /** Clean end: the writer completes and syncs the file, the sidecar says `complete: true`. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.writer.close();
    } finally {
      this.events?.close();
    }
    writeSidecar(this.spec.dir, {
      ...this.meta,
      complete: true,
      durationSeconds: this.writer.samplesWritten / this.spec.sampleRate,
    });
  }

  /**
   * End after a write failed (disk full): the file keeps its last flushed state (the writers cut
   * what was half written); the sidecar stays `complete: false` with the reason. Never throws.
   */
  abort(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.writer.close();
    } catch {
      // The last flush failing again is expected on a full disk; the file is valid at its last flush.
    }
    this.events?.close();
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
  }
}
