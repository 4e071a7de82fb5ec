import { float32JsonRows, float32Text } from './float32-text.js';
import { listJsonText } from './list-json-text.js';

/**
 * A frame: a block of consecutive samples of one source (docs/api.md §Frames).
 *
 * In memory the samples are one Float32Array, row-major (sample after sample:
 * `data[i * channels.length + c]`). Frames are immutable once emitted: fan-out hands the same
 * object to every consumer, so no consumer may write into `data`. Copies happen only at thread
 * or process boundaries, where the buffer is transferred.
 */
export interface Frame {
  /** Counts frames per output port from 0. */
  readonly seq: number;
  /** Time of the first sample, ms since the Unix epoch. */
  readonly timestamp: number;
  /** Samples per second per channel. */
  readonly sampleRate: number;
  /** Channel names, one per column. */
  readonly channels: readonly string[];
  /** Samples, row-major: `data[i * channels.length + c]`. */
  readonly data: Float32Array;
  /**
   * The unit of each channel, one per column (`µV`, `µV²`, `dB`, `1` for a dimensionless score,
   * `m/s²`…), for frames whose channels are not all EEG in µV: a derived quantity (`O1.alpha`,
   * `score.12Hz`) or a device's non-voltage channel. Absent means every channel is in µV.
   */
  readonly units?: readonly string[];
  /** True on the first frame after a gap (pause, restart, rate change, lost samples). */
  readonly discontinuity?: boolean;
  /**
   * The largest magnitude (same unit as the samples, µV for EEG) the source can ever produce on any
   * channel; absent when unknown. Processors scale it by their gain bound (streams/executables/frame-range.ts);
   * recorders take their physical range from it. Not part of the JSON text form nor of the binary
   * form of external nodes (a frame from an external node has no range).
   */
  readonly range?: number;
  /**
   * Hz: a filter upstream removed every frequency below this one, DC included (the highest
   * high-pass cutoff the samples went through); absent when no filter removed DC. Recorders choose
   * a finer physical range for such samples (docs/recording.md). Carried like `range`: not part of
   * the JSON text form nor of the binary form of external nodes.
   */
  readonly highpass?: number;
  /**
   * Samples per channel the source knows it lost just before this frame (a device's dropped
   * packets, counted from its sample counter), at this frame's rate; only on a frame with
   * `discontinuity`. Recorders annotate the loss with it instead of calling the gap a pause. Carried
   * like `range` by the runtime and by processors that keep the rate; not part of the JSON text form
   * nor of the binary form of external nodes.
   */
  readonly lostSamples?: number;
  /**
   * A sentence the source says about its samples from this frame on, which recorders write into
   * the file as an annotation at this frame's first sample (a live device's rate guard: the source
   * sends faster than it declares; the ssvep node's detection). Carried like `lostSamples`, and
   * part of the JSON text form (not of the binary forms).
   */
  readonly annotation?: string;
  /**
   * On an epoch's frame (the `epoch` built-in): the marker it was cut around, its text and the time
   * of its sample (ms since the Unix epoch; the frame's `timestamp` is that of its first sample).
   * Part of the JSON text form; not of the binary forms.
   */
  readonly marker?: FrameMarker;
  /**
   * Creation time at the source, ms on the service's one wall clock (core/wall-clock.ts: monotonic,
   * the same in every thread), used for per-pipe latency. Not part of the JSON text form.
   */
  readonly createdAt?: number;
}

/** The marker an epoch's frame was cut around (see {@link Frame.marker}). */
export interface FrameMarker {
  readonly text: string;
  /** Time of the marker's sample, ms since the Unix epoch. */
  readonly timestamp: number;
}

/** Number of samples (rows) in a frame. */
export function frameSamples(frame: Frame): number {
  const width = frame.channels.length;
  return width === 0 ? 0 : frame.data.length / width;
}

/**
 * A sample in the JSON text form: a number, or, for the values JSON has no number for, the
 * strings `"NaN"`, `"Infinity"` and `"-Infinity"` (as JavaScript and Python name them: `Number(s)`
 * and `float(s)` read them back). JSON.stringify would write all three as `null`, which tells none
 * of them apart.
 */
export type JsonSample = number | 'NaN' | 'Infinity' | '-Infinity';

/**
 * A sample's JSON form (see {@link JsonSample}): a finite sample as the number its shortest
 * float32 text reads as (./float32-text.ts), so that `JSON.stringify` writes the same digits as
 * {@link frameJsonText} and reading it as float32 gives the sample back.
 */
export function sampleToJson(value: number): JsonSample {
  return Number.isFinite(value) ? Number(float32Text(value)) : (String(value) as JsonSample);
}

/** A sample from its JSON form; undefined when the value is neither a number nor one of the three strings. */
export function sampleFromJson(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (value === 'NaN') return Number.NaN;
  if (value === 'Infinity') return Number.POSITIVE_INFINITY;
  if (value === '-Infinity') return Number.NEGATIVE_INFINITY;
  return undefined;
}

/** The JSON text form of a frame (docs/api.md §Frames): samples as rows, `data[i][c]`. */
export interface FrameJson {
  seq: number;
  timestamp: number;
  sampleRate: number;
  channels: string[];
  data: JsonSample[][];
  /** Present only when some channel is not in µV (see {@link Frame.units}). */
  units?: string[];
  discontinuity?: boolean;
  marker?: FrameMarker;
  /** What the source says of its samples from this frame on (see {@link Frame.annotation}). */
  annotation?: string;
}

/** A frame's samples as rows of their JSON form. */
export function jsonRows(frame: Pick<Frame, 'channels' | 'data'>): JsonSample[][] {
  const width = frame.channels.length;
  const rows: JsonSample[][] = [];
  for (let offset = 0; offset < frame.data.length && width > 0; offset += width) {
    rows.push(Array.from(frame.data.subarray(offset, offset + width), sampleToJson));
  }
  return rows;
}

export function frameToJson(frame: Frame): FrameJson {
  return {
    seq: frame.seq,
    timestamp: frame.timestamp,
    sampleRate: frame.sampleRate,
    channels: [...frame.channels],
    data: jsonRows(frame),
    ...(frame.units === undefined ? {} : { units: [...frame.units] }),
    ...(frame.discontinuity === true ? { discontinuity: true } : {}),
    ...(frame.marker === undefined ? {} : { marker: { ...frame.marker } }),
    ...(frame.annotation === undefined ? {} : { annotation: frame.annotation }),
  };
}

/** The unit of a frame's channel `c`: its `units` entry, µV when the frame has none. */
export function channelUnit(frame: Pick<Frame, 'units'>, c: number): string {
  return frame.units?.[c] ?? MICROVOLT;
}

/** The unit of EEG channels, and of every channel of a frame without `units`. */
export const MICROVOLT = 'µV';

/**
 * Checks a frame's `units` against its channels: one string per channel. Returns a sentence saying
 * what is wrong, or undefined. Every way into headsetd from outside (ingest, external nodes) refuses
 * a frame that fails it, so no consumer meets a units list of the wrong length.
 */
export function unitsProblem(units: unknown, width: number): string | undefined {
  if (units === undefined) return undefined;
  if (!Array.isArray(units) || !units.every((u) => typeof u === 'string')) {
    return "'units' must be an array of strings, one per channel";
  }
  if (units.length !== width) {
    return `'units' has ${units.length} entries for ${width} channels (one per channel)`;
  }
  return undefined;
}

/** Units to carry: undefined when every channel is in µV (the frame then has no `units`). */
export function unitsOrNone(units: readonly string[] | undefined): readonly string[] | undefined {
  if (units === undefined || units.every((u) => u === MICROVOLT)) return undefined;
  return units;
}

/** How {@link frameJsonText} writes a frame inside another message's shape. */
export interface FrameTextOptions {
  /**
   * Members written before the frame's own, without braces or a trailing comma: the node
   * protocol's `"type":"frame","port":"in"` (docs/node-protocol.md). Default none.
   */
  readonly lead?: string;
  /**
   * Whether an epoch's `marker` and the source's `annotation` are written (default true). The
   * node protocol's frames carry neither (docs/node-protocol.md §Messages).
   */
  readonly notes?: boolean;
}

/**
 * The one JSON text encoder of frames: every socket that sends frames as text (a websocket node,
 * a quick stream's clients and forward, GET /system/sensors/eeg/stream) and the node protocol's
 * NDJSON write a frame's text here. Without options it is `JSON.stringify(frameToJson(frame))`,
 * the same text, made several times faster: the samples are written straight as the shortest
 * text of each float32 (./float32-text.ts `float32JsonRows`, which quotes the values JSON has no
 * number for, as {@link JsonSample} says) rather than copied into arrays of numbers, and the
 * channel names are encoded once per list (docs/performance.md §Samples as text).
 */
export function frameJsonText(frame: Frame, options?: FrameTextOptions): string {
  const names = listJsonText(frame.channels);
  const rows = float32JsonRows(frame.data, frame.channels.length);
  const gap = frame.discontinuity === true ? ',"discontinuity":true' : '';
  const notes = options?.notes ?? true;
  const marker = !notes || frame.marker === undefined ? '' : `,"marker":${JSON.stringify(frame.marker)}`;
  const units = frame.units === undefined ? '' : `,"units":${listJsonText(frame.units)}`;
  const note =
    !notes || frame.annotation === undefined ? '' : `,"annotation":${JSON.stringify(frame.annotation)}`;
  const lead = options?.lead === undefined ? '' : `${options.lead},`;
  return `{${lead}"seq":${JSON.stringify(frame.seq)},"timestamp":${JSON.stringify(frame.timestamp)},"sampleRate":${JSON.stringify(frame.sampleRate)},"channels":${names},"data":[${rows}]${units}${gap}${marker}${note}}`;
}

/**
 * Builds a frame from the JSON text form; rows shorter or longer than `channels`, and values that
 * are neither numbers nor the strings of {@link JsonSample}, are refused.
 */
export function frameFromJson(json: FrameJson): Frame {
  const width = json.channels.length;
  const unitsIssue = unitsProblem(json.units, width);
  if (unitsIssue !== undefined) throw new RangeError(unitsIssue);
  const data = new Float32Array(json.data.length * width);
  json.data.forEach((row, i) => {
    if (row.length !== width) {
      throw new RangeError(`frame row ${i} has ${row.length} values for ${width} channels`);
    }
    row.forEach((value, c) => {
      const sample = sampleFromJson(value);
      if (sample === undefined) {
        throw new RangeError(
          `frame value [${i}][${c}] is neither a number nor "NaN", "Infinity", "-Infinity"`,
        );
      }
      data[i * width + c] = sample;
    });
  });
  return {
    seq: json.seq,
    timestamp: json.timestamp,
    sampleRate: json.sampleRate,
    channels: json.channels,
    data,
    ...(json.units === undefined ? {} : { units: json.units }),
    ...(typeof json.annotation === 'string' ? { annotation: json.annotation } : {}),
    ...(json.discontinuity === true ? { discontinuity: true } : {}),
  };
}
