/**
 * Cuts a live amplifier's blocks into the headset's frames: `frameRows(rate)` rows each (~10 ms),
 * whatever the size of the blocks the driver pushes (a Cyton packet is one row, an LSL chunk may be
 * hundreds). Values pass through unaltered (they are already the amplifier's µV), only the columns
 * of the acquired electrodes are kept, in the configured order.
 *
 * Time: a frame's `timestamp` is the time of its first row, read from the block that row came in
 * (the block's `timestamp` + row × its `period`, the driver's clock, else 1 / rate). Lost rows are never filled in: the rows before a loss
 * leave as a shorter frame at once, and the frame after it says `discontinuity: true` with the
 * count in `lostSamples`, as does (without a count) the first frame of a run. `stamp` may hold a
 * frame's time back (the rate guard, rate-guard.ts: never before the previous frame, never far
 * ahead of the rows' arrival); `annotate` gives the next frame a sentence recorders write into
 * the file (`Frame.annotation`).
 */
import type { Frame } from '../../core/frame.js';
import { frameRows } from '../adc.js';
import type { LiveSamples } from './driver.js';
import { wallNowMs } from '../../core/wall-clock.js';

export interface FramerOptions {
  /** Hz, the amplifier's rate. */
  readonly rate: number;
  /** Columns of the driver's blocks to keep, in the frames' order. */
  readonly columns: readonly number[];
  /** The frames' channel names, one per kept column. */
  readonly channelNames: readonly string[];
  /** The frames' units, one per kept column; absent when all are µV (core/frame.ts). */
  readonly units?: readonly string[] | undefined;
  /** Columns of the driver's blocks (the driver's channel count). */
  readonly width: number;
  /** µV bound of a sample, when the amplifier knows it (frame `range`). */
  readonly range: () => number | undefined;
  /** The next frame's `seq` (counted over the device's life, not the run's). */
  readonly nextSeq: () => number;
  readonly emit: (frame: Frame) => void;
  /** The time a frame gets when its first row's time is `proposed` (ms); default: that time. */
  readonly stamp?: (proposed: number) => number;
}

export class LiveFramer {
  private readonly rows: number;
  private pending: Float32Array;
  private filled = 0;
  private pendingTimestamp = 0;
  private pendingDiscontinuity = false;
  /** Rows the driver lost before the pending frame (its `lostSamples`). */
  private pendingLost = 0;
  /** Rows lost since the last frame began, for the next one. */
  private lost = 0;
  /** The next frame starts after a gap (or is the run's first). */
  private gap = true;
  /** For the next frame emitted: its `annotation`. */
  private note: string | undefined;
  /** Rows handed out in frames. */
  delivered = 0;

  constructor(private readonly options: FramerOptions) {
    this.rows = frameRows(options.rate);
    this.pending = new Float32Array(this.rows * options.columns.length);
  }

  /** Rows per full frame. */
  frameRows(): number {
    return this.rows;
  }

  /** Takes one block from the driver; emits every frame it completes. */
  push(block: LiveSamples): void {
    const { columns, width, rate } = this.options;
    if (block.discontinuity || block.lost > 0) {
      // The rows before the gap are whole and true: they leave now, as a shorter frame.
      this.flush();
      this.gap = true;
      this.lost += block.lost;
    }
    const kept = columns.length;
    for (let row = 0; row < block.rows; row++) {
      if (this.filled === 0) {
        const proposed = block.timestamp + row * (block.period ?? 1000 / rate);
        this.pendingTimestamp = this.options.stamp === undefined ? proposed : this.options.stamp(proposed);
        this.pendingDiscontinuity = this.gap;
        this.pendingLost = this.lost;
        this.gap = false;
        this.lost = 0;
      }
      const from = row * width;
      const to = this.filled * kept;
      for (let c = 0; c < kept; c++) this.pending[to + c] = block.data[from + (columns[c] as number)] ?? 0;
      this.filled++;
      if (this.filled === this.rows) this.flush();
    }
  }

  /** The next frame emitted carries `text` as its `annotation` (after any given before it). */
  annotate(text: string): void {
    this.note = this.note === undefined ? text : `${this.note} ${text}`;
  }

  /** Emits the rows held back, as a shorter frame (before a gap, at a stop). */
  flush(): void {
    if (this.filled === 0) return;
    const kept = this.options.columns.length;
    const data = this.filled === this.rows ? this.pending : this.pending.slice(0, this.filled * kept);
    const range = this.options.range();
    const frame: Frame = {
      seq: this.options.nextSeq(),
      timestamp: this.pendingTimestamp,
      sampleRate: this.options.rate,
      channels: this.options.channelNames,
      data,
      ...(this.options.units === undefined ? {} : { units: this.options.units }),
      ...(this.pendingDiscontinuity ? { discontinuity: true } : {}),
      ...(this.pendingLost > 0 ? { lostSamples: this.pendingLost } : {}),
      ...(range === undefined ? {} : { range }),
      ...(this.note === undefined ? {} : { annotation: this.note }),
      createdAt: wallNowMs(),
    };
    this.delivered += this.filled;
    this.filled = 0;
    this.pendingDiscontinuity = false;
    this.pendingLost = 0;
    this.note = undefined;
    // Frames are shared with listeners: the next one gets its own buffer.
    this.pending = new Float32Array(this.rows * kept);
    this.options.emit(frame);
  }
}
