/**
 * Maps wall-clock instants (a marker's arrival, an `annotate` onset) to the recording's sample
 * clock, using the frames' timestamps (time of each frame's first sample).
 *
 * The file is continuous: its sample n lies at n / rate seconds, whatever gaps the stream had. An
 * instant t inside the span of the latest frame (or before it) maps through that frame:
 *   n = start + (t − timestamp) · rate / 1000.
 * An instant after the latest frame's end has no samples yet (markers usually arrive a little
 * before the frame holding their time): it waits for the next frame and maps through it; when
 * that frame follows a gap (pause, lost frames), an instant inside the gap maps to the first sample
 * after it. At the end of a recording the waiting ones go at the last sample.
 */

export interface PendingMark<T> {
  /** ms since the epoch. */
  time: number;
  item: T;
}

interface Anchor {
  /** Index of the frame's first sample in the file. */
  start: number;
  /** Its timestamp, ms. */
  timestamp: number;
  samples: number;
  /** The frame followed a gap: instants before it map to its first sample. */
  afterGap: boolean;
}

export class SampleClock<T> {
  private anchor: Anchor | undefined;
  private pending: PendingMark<T>[] = [];

  constructor(readonly sampleRate: number) {}

  private endOf(anchor: Anchor): number {
    return anchor.timestamp + (anchor.samples * 1000) / this.sampleRate;
  }

  private indexIn(anchor: Anchor, time: number): number {
    const n = Math.round(anchor.start + ((time - anchor.timestamp) * this.sampleRate) / 1000);
    return Math.max(anchor.afterGap ? anchor.start : 0, n);
  }

  /** The sample index of `time`, or undefined when it lies after every frame so far (then it waits). */
  place(time: number, item: T): number | undefined {
    const anchor = this.anchor;
    if (anchor !== undefined && time < this.endOf(anchor)) return this.indexIn(anchor, time);
    this.pending.push({ time, item });
    return undefined;
  }

  /**
   * A frame was written at `start`; answers the waiting marks it resolves, with their indices.
   */
  frame(start: number, timestamp: number, samples: number, afterGap: boolean): { index: number; item: T }[] {
    const anchor: Anchor = { start, timestamp, samples, afterGap };
    this.anchor = anchor;
    const resolved: { index: number; item: T }[] = [];
    const end = this.endOf(anchor);
    this.pending = this.pending.filter((mark) => {
      if (mark.time >= end) return true;
      resolved.push({ index: this.indexIn(anchor, mark.time), item: mark.item });
      return false;
    });
    return resolved;
  }

  /** The marks still waiting (the recording ends): they go at `lastIndex`. */
  drain(lastIndex: number): { index: number; item: T }[] {
    const out = this.pending.map((mark) => ({ index: Math.max(0, lastIndex), item: mark.item }));
    this.pending = [];
    return out;
  }
}
