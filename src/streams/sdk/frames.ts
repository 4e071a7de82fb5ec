/**
 * Frames as a node written with the SDK sees them, and helpers to build the frames it sends.
 */
import type { Frame } from '../../core/frame.js';

export { channelUnit } from '../../core/frame.js';

/**
 * A frame received on an input port: `data` holds the samples row-major
 * (`data[i * channels.length + c]` is sample i of channel c); `units`, one per channel, only when
 * some channel is not in µV (`channelUnit(frame, c)` reads either way).
 */
export type NodeFrame = Frame;

/** A frame to send. `seq` defaults to the port's next number, `timestamp` to now. */
export interface OutputFrame {
  seq?: number;
  /** Time of the first sample, ms since the Unix epoch. */
  timestamp?: number;
  /** Samples per second per channel. */
  sampleRate: number;
  channels: readonly string[];
  /** Row-major samples, or rows (`data[i][c]`). */
  data: Float32Array | readonly (readonly number[])[];
  /**
   * Each channel's unit (`µV²`, `dB`, `1`…), one per channel; leave it out when every channel is
   * in µV. A node that derives a quantity says its unit here, so recorders and LSL name it.
   */
  units?: readonly string[];
  discontinuity?: boolean;
}

/** Samples as rows, `rows[i][c]`. */
export function frameRows(frame: Pick<Frame, 'channels' | 'data'>): number[][] {
  const width = frame.channels.length;
  const rows: number[][] = [];
  for (let offset = 0; width > 0 && offset < frame.data.length; offset += width) {
    rows.push(Array.from(frame.data.subarray(offset, offset + width)));
  }
  return rows;
}

/** Number of samples (rows) of a frame. */
export function sampleCount(frame: Pick<Frame, 'channels' | 'data'>): number {
  return frame.channels.length === 0 ? 0 : frame.data.length / frame.channels.length;
}

/** Row-major float32 samples from rows; a row whose length differs from `width` is refused. */
export function samplesFromRows(rows: readonly (readonly number[])[], width: number): Float32Array {
  const data = new Float32Array(rows.length * width);
  rows.forEach((row, i) => {
    if (row.length !== width) throw new RangeError(`row ${i} has ${row.length} values for ${width} channels`);
    data.set(row, i * width);
  });
  return data;
}

/**
 * Builds an output frame with the shape of `like` (its channels and rate, its timestamp unless
 * given) and new samples: the usual output of a processor that keeps its input's shape.
 */
export function frameLike(
  like: Pick<Frame, 'channels' | 'sampleRate' | 'timestamp' | 'units'> & { discontinuity?: boolean },
  data: Float32Array | readonly (readonly number[])[],
  overrides: Partial<Omit<OutputFrame, 'data'>> = {},
): OutputFrame {
  return {
    timestamp: like.timestamp,
    sampleRate: like.sampleRate,
    channels: like.channels,
    ...(like.units === undefined ? {} : { units: like.units }),
    ...(like.discontinuity === true ? { discontinuity: true } : {}),
    ...overrides,
    data,
  };
}
