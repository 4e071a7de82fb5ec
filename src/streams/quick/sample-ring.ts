/**
 * The samples a quick stream keeps for GET /stream/{streamId}/data: the latest `capacity` rows,
 * on the main thread, in one Float32Array (row-major, like a frame) plus each row's time. Writing
 * a frame is a copy into the ring; nothing is allocated per frame.
 */
import { type Frame, type JsonSample, sampleToJson } from '../../core/frame.js';

export interface LatestSamples {
  /** Time of the first returned row, ms since the epoch (null when the ring is empty). */
  timestamp: number | null;
  channels: string[];
  /** Rows, oldest first: `data[i][c]`; NaN and ±Infinity as their JSON strings (core/frame.ts). */
  data: JsonSample[][];
  /** Each channel's unit, only when some channel is not in µV (core/frame.ts `units`). */
  units?: string[];
}

export class SampleRing {
  private values: Float32Array;
  private readonly times: Float64Array;
  private width = 0;
  private channels: string[] = [];
  private units: readonly string[] | undefined;
  /** Index of the next row to write. */
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.values = new Float32Array(0);
    this.times = new Float64Array(capacity);
  }

  /** Rows held now (at most `capacity`). */
  get size(): number {
    return this.count;
  }

  /** Forgets every row (a new run of the stream). */
  clear(): void {
    this.head = 0;
    this.count = 0;
  }

  /** Appends a frame's rows. A frame with other channels than the rows held starts the ring anew. */
  push(frame: Frame): void {
    const width = frame.channels.length;
    if (width === 0) return;
    if (width !== this.width || frame.channels.some((c, i) => c !== this.channels[i])) {
      this.width = width;
      this.channels = [...frame.channels];
      this.values = new Float32Array(this.capacity * width);
      this.clear();
    }
    this.units = frame.units;
    const rows = frame.data.length / width;
    // Only the last `capacity` rows of a very large frame can stay.
    const skip = Math.max(0, rows - this.capacity);
    const period = 1000 / frame.sampleRate;
    for (let r = skip; r < rows; r++) {
      this.values.set(frame.data.subarray(r * width, (r + 1) * width), this.head * width);
      this.times[this.head] = frame.timestamp + r * period;
      this.head = (this.head + 1) % this.capacity;
    }
    this.count = Math.min(this.capacity, this.count + rows - skip);
  }

  /** The latest `limit` rows (fewer when fewer are held), oldest first. */
  latest(limit: number): LatestSamples {
    const n = Math.min(limit, this.count);
    const data: JsonSample[][] = [];
    let first: number | null = null;
    for (let k = n; k > 0; k--) {
      const row = (this.head - k + this.capacity) % this.capacity;
      first ??= this.times[row] ?? null;
      data.push(Array.from(this.values.subarray(row * this.width, (row + 1) * this.width), sampleToJson));
    }
    return {
      timestamp: first,
      channels: [...this.channels],
      data,
      ...(this.units === undefined ? {} : { units: [...this.units] }),
    };
  }
}
