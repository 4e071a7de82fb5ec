/**
 * Consecutive frames joined into frames of a fixed duration: `rows = round(rate × durationMs /
 * 1000)` rows each (at least one), a frame split where a block ends, its rest opening the next.
 *
 * Why: every frame costs its stream's nodes a turn (pipes, filter, encoding) and each socket a
 * write whatever its size; on a 2-core VM that is much of what a stream of 12 ms device frames
 * costs (docs/performance-areas.md §CPU per stream). A subscriber that does not need the device's
 * ~10 ms frames (a recorder, a display at 25 frames a second) asks for longer ones and pays those
 * costs less often; each joined frame is delivered when its last row arrives, so it is at most
 * `durationMs` later than its rows were on their own. Frames are joined in the subscriber's thread
 * (core/frame-subscription.ts), which gets the device's frames as they come.
 *
 * Nothing is altered: the samples are copied as they came, the first row keeps its exact time
 * (a split frame's rest is timed from its own first row), and a block never spans a gap: a frame
 * with `discontinuity` (and its `lostSamples`) or an `annotation`, another rate, another channel list, range or
 * high-pass first delivers the rows held so far as a shorter frame, then opens a block of its own.
 */
import { type Frame, frameSamples } from './frame.js';

function sameChannels(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((name, i) => name === b[i]));
}

/** Whether `next` continues the block that `head` opened, with no gap and nothing changed. */
function continues(head: Frame, next: Frame): boolean {
  return (
    next.discontinuity !== true &&
    next.annotation === undefined &&
    next.sampleRate === head.sampleRate &&
    next.range === head.range &&
    next.highpass === head.highpass &&
    sameChannels(head.channels, next.channels) &&
    sameUnits(head.units, next.units)
  );
}

function sameUnits(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return a === undefined || b === undefined ? a === b : sameChannels(a, b);
}

/** Rows of a joined frame at `sampleRate`. */
export function joinedRows(sampleRate: number, durationMs: number): number {
  return Math.max(1, Math.round((sampleRate * durationMs) / 1000));
}

export class FrameJoiner {
  /** The block's first row's frame (its time, rate, channels, flags); undefined when empty. */
  private head: Frame | undefined;
  private block = new Float32Array(0);
  private held = 0;
  private target = 0;
  private createdAt: number | undefined;

  constructor(
    private readonly durationMs: number,
    private readonly emit: (frame: Frame) => void,
  ) {}

  /** Takes a frame's rows; emits every block they complete. */
  push(frame: Frame): void {
    const rows = frameSamples(frame);
    if (rows === 0) {
      this.flush();
      this.emit(frame);
      return;
    }
    if (this.head !== undefined && !continues(this.head, frame)) this.flush();
    const width = frame.channels.length;
    let offset = 0;
    while (offset < rows) {
      if (this.head === undefined) {
        this.target = joinedRows(frame.sampleRate, this.durationMs);
        if (offset === 0 && rows === this.target) {
          // Already the asked size: delivered as it is, without a copy.
          this.emit(frame);
          return;
        }
        this.head = offset === 0 ? frame : rest(frame, offset);
        this.block = new Float32Array(this.target * width);
        this.held = 0;
      }
      const take = Math.min(this.target - this.held, rows - offset);
      this.block.set(frame.data.subarray(offset * width, (offset + take) * width), this.held * width);
      this.held += take;
      offset += take;
      this.createdAt = frame.createdAt;
      if (this.held === this.target) this.flush();
    }
  }

  /** Delivers the rows held so far as one (shorter) frame; nothing when none are held. */
  flush(): void {
    const head = this.head;
    if (head === undefined) return;
    const width = head.channels.length;
    const data = this.held === this.target ? this.block : this.block.slice(0, this.held * width);
    this.head = undefined;
    this.block = new Float32Array(0);
    this.held = 0;
    const { createdAt: _first, ...meta } = head;
    this.emit({ ...meta, data, ...(this.createdAt === undefined ? {} : { createdAt: this.createdAt }) });
  }

  /** Rows held, not yet delivered. */
  get pendingRows(): number {
    return this.held;
  }
}

/** The metadata of `frame` from row `offset` on: its own time; the gap flags stay with row 0. */
function rest(frame: Frame, offset: number): Frame {
  const { discontinuity: _gap, lostSamples: _lost, annotation: _note, ...meta } = frame;
  return { ...meta, timestamp: frame.timestamp + (offset * 1000) / frame.sampleRate };
}
