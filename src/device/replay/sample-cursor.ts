/**
 * Reads a recording's samples in playback order, on demand: a position (record, sample) that
 * advances with every read and wraps to the first record after the last recorded sample (the
 * replay loops; the padding after `Recording ends` is never read). Samples
 * come from positioned reads of about a quarter of a second of each played signal at a time, so
 * memory stays small even for a file whose single data record holds hours (a flaw real files have,
 * docs/device.md §Replay device).
 *
 * Values are the EDF spec's physical values (the reader's `toPhysical`) times the channel's
 * scale to µV, rounded once to float32: equal to what `EdfReader.readSignal` gives, scaled.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { DeviceUnavailableError } from '../errors.js';
import { toPhysical } from '../../formats/edf-reader.js';
import type { ReplayMarker, ReplayRecording } from './recording.js';

/** What one read went through: rows starting a new pass or following a gap, and markers. */
export interface ReadEvents {
  /** Rows (indices into this read) whose sample starts a new pass of the file or follows an EDF+D gap. */
  jumps: number[];
  /** Markers whose sample this read delivered, with its row in the read. */
  markers: { row: number; marker: ReplayMarker }[];
}

/** Seconds of each signal read at once. */
const BLOCK_SECONDS = 0.25;

export class SampleCursor {
  private fd: number | undefined;
  private readonly blockRows: number;
  /** Playback position: the record, and the sample inside it. */
  private record = 0;
  private sample = 0;
  /** The block in memory: samples [blockStart, blockStart + blockLength) of `blockRecord`. */
  private blockRecord = -1;
  private blockStart = 0;
  private blockLength = 0;
  /** Loaded block values by channel index (into `recording.channels`), µV. */
  private readonly block = new Map<number, Float32Array>();
  /** True when the next sample read starts a new pass or follows a gap. */
  private jumpPending = false;
  /** Index into `recording.markers` of the next marker of the pass. */
  private nextMarker = 0;

  constructor(private readonly recording: ReplayRecording) {
    this.fd = openSync(recording.info.path, 'r');
    this.blockRows = Math.max(
      1,
      Math.min(recording.samplesPerRecord, Math.ceil(recording.sampleRate * BLOCK_SECONDS)),
    );
  }

  /** Samples read since the start of the present pass (0 at the start of a loop). */
  get position(): number {
    return this.record * this.recording.samplesPerRecord + this.sample;
  }

  /**
   * Writes the next `rows` samples of `columns` (indices into `recording.channels`) into `out`,
   * row-major, `columns.length` wide, and advances. Answers the rows that start a new pass or
   * follow an EDF+D gap, and the markers passed.
   */
  read(out: Float32Array, rows: number, columns: readonly number[]): ReadEvents {
    const width = columns.length;
    const events: ReadEvents = { jumps: [], markers: [] };
    const markers = this.recording.markers;
    let row = 0;
    while (row < rows) {
      if (this.jumpPending) {
        events.jumps.push(row);
        this.jumpPending = false;
      }
      this.ensureBlock(columns);
      const offset = this.sample - this.blockStart;
      const take = Math.min(rows - row, this.blockLength - offset);
      for (let c = 0; c < width; c++) {
        const values = this.block.get(columns[c] ?? 0) as Float32Array;
        for (let i = 0; i < take; i++) out[(row + i) * width + c] = values[offset + i] as number;
      }
      const from = this.position;
      for (let m = markers[this.nextMarker]; m !== undefined && m.position < from + take; ) {
        events.markers.push({ row: row + Math.max(0, m.position - from), marker: m });
        m = markers[++this.nextMarker];
      }
      row += take;
      this.advance(take);
    }
    return events;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.block.clear();
  }

  private advance(rows: number): void {
    this.sample += rows;
    if (this.position >= this.recording.samples) {
      // The last recorded sample: the next pass begins (the padding after it is never played).
      this.record = 0;
      this.sample = 0;
      this.jumpPending = true;
      this.nextMarker = 0;
      return;
    }
    if (this.sample < this.recording.samplesPerRecord) return;
    this.sample = 0;
    this.record++;
    if (this.recording.gapRecords.has(this.record)) this.jumpPending = true;
  }

  /** Loads the block holding the position, for every column not loaded yet. */
  private ensureBlock(columns: readonly number[]): void {
    const inBlock =
      this.blockRecord === this.record &&
      this.sample >= this.blockStart &&
      this.sample < this.blockStart + this.blockLength;
    if (!inBlock) {
      this.block.clear();
      this.blockRecord = this.record;
      this.blockStart = this.sample;
      this.blockLength = Math.min(
        this.blockRows,
        this.recording.samplesPerRecord - this.sample,
        this.recording.samples - this.position,
      );
    }
    for (const column of columns) if (!this.block.has(column)) this.block.set(column, this.load(column));
  }

  /** Positioned read of the block's samples of one channel, scaled to µV. */
  private load(column: number): Float32Array {
    const fd = this.fd;
    if (fd === undefined) throw new Error('the replay cursor is closed');
    const channel = this.recording.channels[column];
    if (channel === undefined) throw new RangeError(`channel ${column} is not played`);
    const header = this.recording.header;
    const width = header.bytesPerSample;
    const start =
      header.headerBytes +
      this.blockRecord * header.recordBytes +
      (header.signalOffsets[channel.signal.index] ?? 0) +
      this.blockStart * width;
    const bytes = Buffer.alloc(this.blockLength * width);
    const got = readSync(fd, bytes, 0, bytes.length, start);
    if (got !== bytes.length) {
      throw new DeviceUnavailableError(
        'recording_cut_short',
        `The recording ${this.recording.info.path} was cut short while it was replayed (record ${this.blockRecord}).`,
      );
    }
    const digital = new Int32Array(this.blockLength);
    for (let k = 0; k < digital.length; k++)
      digital[k] = width === 2 ? bytes.readInt16LE(2 * k) : bytes.readIntLE(3 * k, 3);
    const physical = toPhysical(digital, channel.signal);
    const out = new Float32Array(physical.length);
    const scale = channel.toMicrovolts;
    for (let k = 0; k < physical.length; k++) out[k] = (physical[k] as number) * scale;
    return out;
  }
}
