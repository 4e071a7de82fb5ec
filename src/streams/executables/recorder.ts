/**
 * The `recorder` built-in (docs/api.md §Built-in executables): writes the frames it
 * receives to `<data-dir>/recordings/<filename>` as EDF+C, BDF+C or CSV. docs/recording.md is the
 * user's account of every rule below.
 *
 * - Name: `filename` plus `.<format>` when it lacks that extension; `format` defaults to the
 *   extension of `filename` (`.edf`, `.bdf`, `.csv`), else `edf`. Its bytes and characters are
 *   checked when the stream is created (recordingNameProblem, recordings/paths.ts), so nothing
 *   fails at start for the name itself. A name that exists is refused at start, unless its sidecar says this same stream and node wrote it (a restart after a crash, a
 *   service restart): then the recording continues in the next free segment `<stem>-2.<ext>`, …
 * - Header: labels = channel names, physical dimension from each channel's unit (`uV` unless the
 *   frames' `units` say otherwise: formats/physical-dimension.ts), rate from the frames, start =
 *   first frame's timestamp; physical limits from `physicalRange` (µV channels) and `unitRanges`
 *   (others), or the frames' `range` and `highpass` (./recorder-range.ts). CSV: a channel not in
 *   µV is headed `name (unit)`.
 * - A frame whose rate, channels or units differ from the file's, or whose limits exceed its own (a gain
 *   change, a filter removed), closes the file (annotated) and continues in the next segment.
 * - Clipping (values beyond the limits) and samples of no value (NaN, ±Infinity: written as the
 *   digital minimum) are counted (metrics and info `clippedSamples`, `noValueSamples`), annotated
 *   in spans (./recorder-clipping.ts) and warned of once per segment (a `node_warning` event).
 * - A frame time no recording can hold (core/frame-time.ts) stops the node for good, alike in
 *   every format.
 * - Annotations: `Recording starts`, gaps (a `discontinuity` frame: the wall-clock gap's length),
 *   frames lost upstream (`seq` gaps), a frame's `annotation` (its source's word on its samples), markers (custom signal `marker` {text}) and `annotate`
 *   {text, onset? ms epoch, duration? s}, placed on the sample clock by ./recorder-clock.ts.
 * - Crash safety: the writers flush (append, fdatasync, patch count, fdatasync) every second of
 *   data; a file stays hidden until its first record is on disk (./recorder-file.ts); the sidecar
 *   says `complete: false` until a clean stop. A full disk stops the node for good
 *   (FatalNodeError) with the file valid up to its last flush, or no file at all when not even
 *   the first second fitted; lastError names the file and the space (./recorder-disk.ts).
 * - Status info: `{recording, format, physicalMin, physicalMax, clippedSamples, noValueSamples}`
 *   while writing.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { HeadsetdError } from '../../core/errors.js';
import { recordingsDir, sidecarPath } from '../../recordings/paths.js';
import { type RecordingFormat, readSidecar } from '../../recordings/sidecar.js';
import { channelUnit, type Frame, frameSamples, MICROVOLT } from '../../core/frame.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../../core/node.js';
import { FatalNodeError } from '../runtime/node-errors.js';
import { type PendingMark, SampleClock } from './recorder-clock.js';
import { isDiskFull, notStartedMessage, stoppedMessage } from './recorder-disk.js';
import { RecordingFile, type SegmentSpec } from './recorder-file.js';
import { type PhysicalLimits, physicalLimitsFor, unitLimitsFor } from './recorder-range.js';
import { clipText, noValueText, SampleSpans, type SpanAnnotation } from './recorder-clipping.js';
import { errorMessage } from '../../core/error-message.js';
import { nextSegmentName, recordingName } from './recorder-names.js';
import { frameTimeProblem } from '../../core/frame-time.js';
import { wallNowMs } from '../../core/wall-clock.js';

export interface RecorderConfig {
  filename: string;
  format?: RecordingFormat;
  includeTimestamps?: boolean;
  /** µV: the EDF/BDF physical range ± this, instead of the rule of ./recorder-range.ts. */
  physicalRange?: number;
  /** Per unit other than µV (`g`, `dB`): the physical range ± this (./recorder-range.ts). */
  unitRanges?: Record<string, number>;
}

interface Mark {
  text: string;
  durationSeconds?: number;
}

type TallyKey = 'clippedSamples' | 'noValueSamples';

interface Tally {
  reported: number;
  spans: SampleSpans;
}

/** Unflagged timestamp jumps shorter than this are clock jitter, not gaps. */
const UNFLAGGED_GAP_MS = 100;

/** True when two frames' units are the same (absent and all µV alike). */
function sameUnits(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  const width = Math.max(a?.length ?? 0, b?.length ?? 0);
  for (let c = 0; c < width; c++) if ((a?.[c] ?? MICROVOLT) !== (b?.[c] ?? MICROVOLT)) return false;
  return true;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

class Recorder implements NodeInstance {
  private readonly dir: string;
  private readonly format: RecordingFormat;
  /** The name the next segment gets (the base name, or its first free segment). */
  private nextName: string;
  private file: RecordingFile | undefined;
  private clock: SampleClock<Mark> | undefined;
  private lastSeq: number | undefined;
  /** Timestamp the next frame's first sample should have, ms. */
  private expected: number | undefined;
  /** Per segment: the clipped values and values of no value reported so far, and their spans. */
  private tallies: Record<TallyKey, Tally> | undefined;
  private readonly early: PendingMark<Mark>[] = [];
  private failed = false;
  /** The limits of the last frame asked about, by its `range` and `highpass` (they seldom change). */
  private lastLimits: { range?: number; highpass?: number; limits: PhysicalLimits } | undefined;

  constructor(
    private readonly context: NodeContext,
    private readonly config: RecorderConfig,
  ) {
    this.dir = recordingsDir(context.dataDir);
    const { name, format } = recordingName(config);
    this.format = format;
    this.nextName = name;
  }

  start(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    const base = this.nextName;
    if (existsSync(`${this.dir}/${base}`) || existsSync(sidecarPath(this.dir, base))) {
      const meta = readSidecar(this.dir, base);
      if (meta?.streamId !== this.context.streamId || meta.nodeId !== this.context.nodeId) {
        return Promise.reject(
          new HeadsetdError(
            'validation_failed',
            `the recording "${base}" already exists; choose another filename or delete it (DELETE /system/recordings/${base}).`,
          ),
        );
      }
      this.nextName = nextSegmentName(this.dir, base);
      this.context.log(
        `"${base}" was written by this node before (restart): continuing in "${this.nextName}"`,
      );
    }
    return Promise.resolve();
  }

  onFrame(_port: string, frame: Frame): void {
    if (this.failed) return;
    const samples = frameSamples(frame);
    if (samples === 0) return;
    const timeProblem = frameTimeProblem(frame.timestamp);
    if (timeProblem !== undefined) this.stopForTime(timeProblem);
    try {
      this.record(frame, samples);
    } catch (error) {
      this.failWith(error);
    }
  }

  signal(name: string, payload: Readonly<Record<string, unknown>>): void {
    if (name !== 'marker' && name !== 'annotate') {
      throw new HeadsetdError(
        'invalid_request',
        `the recorder takes the signals marker and annotate, not '${name}'.`,
      );
    }
    const arrival = wallNowMs();
    const text = single(payload.text);
    if (typeof text !== 'string' || text.trim() === '') {
      throw new HeadsetdError('validation_failed', `signal ${name} needs a non-empty 'text'.`);
    }
    let time = arrival;
    let durationSeconds: number | undefined;
    if (name === 'annotate') {
      const onset = numeric(single(payload.onset));
      const duration = numeric(single(payload.duration));
      if (onset === null || duration === null) {
        throw new HeadsetdError(
          'validation_failed',
          "annotate: 'onset' (ms since the epoch) and 'duration' (s) must be numbers.",
        );
      }
      if (onset !== undefined) time = onset;
      if (duration !== undefined) {
        if (duration < 0) throw new HeadsetdError('validation_failed', "annotate: 'duration' must be ≥ 0 s.");
        durationSeconds = duration;
      }
    }
    this.mark(time, { text, ...(durationSeconds === undefined ? {} : { durationSeconds }) });
  }

  stop(): Promise<void> {
    if (!this.failed) {
      try {
        this.closeSegment();
      } catch (error) {
        this.context.log(`close failed: ${errorMessage(error)}`);
        this.file?.abort(errorMessage(error));
        this.file = undefined;
      }
    }
    return Promise.resolve();
  }

  private mark(time: number, mark: Mark): void {
    if (this.failed) return;
    const clock = this.clock;
    if (clock === undefined) {
      // Before the first frame: placed when the first segment opens.
      this.early.push({ time, item: mark });
      return;
    }
    const index = clock.place(time, mark);
    if (index === undefined) return;
    try {
      this.annotateAt(index, mark);
    } catch (error) {
      try {
        this.failWith(error);
      } catch (fatal) {
        this.context.fail(fatal as Error);
      }
    }
  }

  private annotateAt(index: number, mark: Mark): void {
    const file = this.file;
    if (file === undefined) return;
    file.annotate(index / file.spec.sampleRate, mark.text, mark.durationSeconds);
  }

  private record(frame: Frame, samples: number): void {
    let file = this.file;
    const notes: string[] = [];
    if (file !== undefined) {
      const change = this.changeOf(file, frame);
      if (change !== undefined) {
        this.closeSegment(`Continued in "${this.nextName}": ${change}`);
        file = this.openSegment(frame, `continues "${file.name}": ${change}`);
      } else {
        const lost = this.lastSeq === undefined ? 0 : frame.seq - this.lastSeq - 1;
        const gapMs = frame.timestamp - (this.expected ?? frame.timestamp);
        if (frame.discontinuity === true && (frame.lostSamples ?? 0) > 0) {
          const n = frame.lostSamples as number;
          notes.push(
            `Gap of ${seconds(Math.max(0, gapMs))} s: ${n} sample${n === 1 ? '' : 's'} lost upstream`,
          );
        } else if (frame.discontinuity === true && lost <= 0) {
          // (After lost frames the flag is the pipe's: the note below says that loss, once.)
          notes.push(
            gapMs * file.spec.sampleRate > 500
              ? `Gap of ${seconds(gapMs)} s (paused or interrupted)`
              : 'Discontinuity',
          );
        } else if (lost <= 0 && Math.abs(gapMs) > UNFLAGGED_GAP_MS) {
          notes.push(`Timestamp jump of ${seconds(gapMs)} s`);
        }
        if (lost > 0) notes.push(`${lost} frame(s) lost upstream (${seconds(Math.max(0, gapMs))} s)`);
      }
    } else {
      file = this.openSegment(frame);
    }
    const start = file.samples;
    for (const text of notes) file.annotate(start / file.spec.sampleRate, text);
    // What the source says about its samples (a live device's rate guard), where they begin.
    if (frame.annotation !== undefined) file.annotate(start / file.spec.sampleRate, frame.annotation);
    file.write(frame.data, samples, frame.timestamp);
    const afterGap = frame.discontinuity === true || notes.length > 0;
    for (const { index, item } of this.clock?.frame(start, frame.timestamp, samples, afterGap) ?? []) {
      this.annotateAt(index, item);
    }
    this.lastSeq = frame.seq;
    this.expected = frame.timestamp + (samples * 1000) / frame.sampleRate;
    this.tally(file, 'clippedSamples');
    this.tally(file, 'noValueSamples');
  }

  /** Why a frame cannot go on in the current file, or undefined. */
  private changeOf(file: RecordingFile, frame: Frame): string | undefined {
    const { spec } = file;
    if (frame.sampleRate !== spec.sampleRate)
      return `sampling changed from ${spec.sampleRate} Hz to ${frame.sampleRate} Hz`;
    const same =
      frame.channels === spec.channels ||
      (frame.channels.length === spec.channels.length &&
        frame.channels.every((c, i) => c === spec.channels[i]));
    if (!same) return `channels changed to ${frame.channels.join(' ')}`;
    if (!sameUnits(frame.units, spec.units)) {
      return `units changed to ${frame.channels.map((_, c) => channelUnit(frame, c)).join(' ')}`;
    }
    if (spec.format !== 'csv') {
      const wanted = this.limitsOf(frame);
      if (wanted.max > spec.physicalMax || wanted.min < spec.physicalMin) {
        return `range grew from ${span(spec)} to ${span(wanted)} uV`;
      }
    }
    return undefined;
  }

  private openSegment(frame: Frame, continues?: string): RecordingFile {
    const name = this.nextName;
    const limits = this.limitsOf(frame);
    const spec: SegmentSpec = {
      dir: this.dir,
      name,
      format: this.format,
      channels: frame.channels,
      sampleRate: frame.sampleRate,
      startTime: frame.timestamp,
      physicalMin: limits.min,
      physicalMax: limits.max,
      ...(frame.units === undefined
        ? {}
        : { units: frame.units, unitLimits: this.unitLimitsOf(frame, frame.units) }),
      includeTimestamps: this.config.includeTimestamps ?? false,
      streamId: this.context.streamId,
      nodeId: this.context.nodeId,
    };
    let file: RecordingFile;
    try {
      file = RecordingFile.open(spec);
    } catch (error) {
      // Nothing is left under the name (RecordingFile.open cleans up); say why it failed.
      throw isDiskFull(error) ? new FatalNodeError(notStartedMessage(spec, error)) : error;
    }
    this.file = file;
    this.nextName = nextSegmentName(this.dir, name);
    this.clock = new SampleClock<Mark>(frame.sampleRate);
    // Marks that arrived before the first frame wait for it (and land at its first sample).
    for (const { time, item } of this.early.splice(0)) this.clock.place(time, item);
    this.lastSeq = undefined;
    this.expected = undefined;
    this.tallies = {
      clippedSamples: { reported: 0, spans: new SampleSpans(frame.sampleRate, clipText(span(limits))) },
      noValueSamples: { reported: 0, spans: new SampleSpans(frame.sampleRate, noValueText(file.labels)) },
    };
    file.annotate(0, continues === undefined ? 'Recording starts' : `Recording starts (${continues})`);
    this.context.log(
      `recording "${name}": ${this.format}, ${frame.channels.length} channel(s) at ${frame.sampleRate} Hz` +
        (this.format === 'csv' ? '' : `, physical range ${span(limits)} uV (${limits.why})`),
    );
    this.context.setInfo({
      recording: name,
      format: this.format,
      ...(this.format === 'csv' ? {} : { physicalMin: limits.min, physicalMax: limits.max }),
      ...(this.format === 'csv' ? {} : { clippedSamples: 0, noValueSamples: 0 }),
    });
    // Shown from the start (0), so a reader of the metrics knows the node counts them.
    if (this.format !== 'csv') {
      this.context.countMetric?.('clippedSamples', 0);
      this.context.countMetric?.('noValueSamples', 0);
    }
    return file;
  }

  /** Places waiting marks at the end, closes the file cleanly. */
  private closeSegment(endNote?: string): void {
    const file = this.file;
    if (file === undefined) return;
    const last = Math.max(0, file.samples - 1);
    for (const { item } of this.clock?.drain(last) ?? []) this.annotateAt(last, item);
    for (const tally of Object.values(this.tallies ?? {})) this.annotateSpans(file, tally.spans.finish());
    if (endNote !== undefined) file.annotate(file.samples / file.spec.sampleRate, endNote); // the writer adds `Recording ends`
    // A failing close (full disk) leaves this.file set, so failWith reports it as the disk-full stop.
    file.close();
    this.file = undefined;
    this.context.log(
      `recording "${file.name}" closed: ${(file.samples / file.spec.sampleRate).toFixed(3)} s` +
        (file.clippedSamples > 0 ? `, ${file.clippedSamples} sample(s) clipped` : '') +
        (file.noValueSamples > 0 ? `, ${file.noValueSamples} sample(s) of no value` : ''),
    );
  }

  /** The limits of each unit but µV among `units` for a segment opened on `frame` (./recorder-range.ts). */
  private unitLimitsOf(frame: Frame, units: readonly string[]): Record<string, PhysicalLimits> {
    const limits: Record<string, PhysicalLimits> = {};
    for (const unit of units) {
      if (unit !== MICROVOLT && !(unit in limits))
        limits[unit] = unitLimitsFor(unit, frame, this.config.unitRanges);
    }
    return limits;
  }

  /** The limits a segment opened on `frame` gets (./recorder-range.ts). */
  private limitsOf(frame: Frame): PhysicalLimits {
    const last = this.lastLimits;
    if (last !== undefined && last.range === frame.range && last.highpass === frame.highpass)
      return last.limits;
    const limits = physicalLimitsFor(this.format, frame, this.config.physicalRange);
    this.lastLimits = {
      ...(frame.range === undefined ? {} : { range: frame.range }),
      ...(frame.highpass === undefined ? {} : { highpass: frame.highpass }),
      limits,
    };
    return limits;
  }

  /**
   * Values were clipped (or had no value) in the last write: count, annotate (in spans), warn once
   * per segment; else close a span that has waited long enough.
   */
  private tally(file: RecordingFile, key: TallyKey): void {
    const tally = this.tallies?.[key];
    if (tally === undefined) return;
    const count = file[key];
    if (count === tally.reported) {
      if (tally.spans.open) this.annotateSpans(file, tally.spans.add([], file.samples));
      return;
    }
    const runs = key === 'clippedSamples' ? file.takeClipRuns() : file.takeNoValueRuns();
    this.annotateSpans(file, tally.spans.add(runs, file.samples));
    if (tally.reported === 0) {
      const first = runs[0];
      const at = ((first?.first ?? 0) / file.spec.sampleRate).toFixed(3);
      const message =
        key === 'clippedSamples'
          ? `recording "${file.name}" clips: values outside ${span(file.spec)} uV (first at ${at} s) are written at the limit, ` +
            `counted in clippedSamples and annotated in the file; set the recorder's physicalRange wider${this.format === 'edf' ? ', or record BDF' : ''}`
          : `recording "${file.name}" has samples of no value (NaN or infinite) from its source (first at ${at} s): ` +
            'written as the digital minimum, the file\'s "no value", counted in noValueSamples and annotated in the file with their channels';
      this.context.log(message);
      this.context.warn?.(message);
    }
    this.context.countMetric?.(key, count - tally.reported);
    tally.reported = count;
    this.context.setInfo({ [key]: count });
  }

  private annotateSpans(file: RecordingFile, notes: readonly SpanAnnotation[]): void {
    for (const note of notes) file.annotate(note.onsetSeconds, note.text, note.durationSeconds);
  }

  /**
   * A frame whose time no recording can hold (core/frame-time.ts): the same for every format, and
   * for good, since the source will go on sending such times. The file so far is closed cleanly
   * with the reason as its last annotation.
   */
  private stopForTime(problem: string): never {
    const file = this.file;
    const message = `recording "${file?.name ?? this.nextName}" stopped: a frame's ${problem}`;
    if (file !== undefined) {
      try {
        this.closeSegment(`Recording stopped: a frame's ${problem}`);
      } catch (error) {
        this.failWith(error);
      }
    }
    this.failed = true;
    throw new FatalNodeError(`${message}.`);
  }

  /**
   * A write failed: a full disk ends the node for good (its lastError says so: see
   * ./recorder-disk.ts), anything else is an ordinary failure.
   */
  private failWith(error: unknown): never {
    const file = this.file;
    this.failed = true;
    this.file = undefined;
    if (isDiskFull(error) && file !== undefined) {
      const message = file.abort('disk full')
        ? stoppedMessage(file.spec, file.flushedSeconds, error)
        : notStartedMessage(file.spec, error);
      throw new FatalNodeError(message);
    }
    file?.abort(errorMessage(error));
    if (error instanceof HeadsetdError) throw new FatalNodeError(error.message);
    throw error;
  }
}

/** `±187500`, or `-3276.8..3276.7` when the limits are not symmetric. */
function span(limits: { min: number; max: number } | SegmentSpec): string {
  const [min, max] =
    'physicalMax' in limits ? [limits.physicalMin, limits.physicalMax] : [limits.min, limits.max];
  return min === -max ? `±${max}` : `${min}..${max}`;
}

function single(value: unknown): unknown {
  return Array.isArray(value) && value.length === 1 ? (value[0] as unknown) : value;
}

/** undefined when absent, null when not a number (form fields arrive as strings). */
function numeric(value: unknown): number | undefined | null {
  if (value === undefined) return undefined;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

export const createRecorder: NodeFactory = (context) =>
  new Recorder(context, context.config as unknown as RecorderConfig);
