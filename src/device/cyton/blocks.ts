/**
 * Packets to the blocks the live headset receives: rows from the sequencer (./sequencer.ts) scaled
 * to µV at each channel's gain, cut into blocks at every loss or restart, stamped with the sample
 * clock (./sample-clock.ts), each row's time on its fitted line (`period`). A block is what one chunk of bytes completed, so blocks follow the
 * serial port's pace; a block never spans a loss, and the block after one carries `lost` and
 * `discontinuity`.
 *
 * While a tap is set (the lead-off measurement), rows go to it instead, unstamped.
 */
import { frameRows } from '../adc.js';
import type { LiveSamples } from '../live/driver.js';
import type { CytonPacket } from './protocol.js';
import { SampleClock, type SampleClockOptions } from './sample-clock.js';
import { type SequencedRow, Sequencer, type SequencerOutput } from './sequencer.js';

/** The largest relative error of any step between two samples' times that the docs promise. */
export const MAX_STEP_ERROR = 1e-3;

/**
 * The sample clock's slew limit at `rate`. Frames (../live/live-framer.ts) place their rows at the
 * nominal period from their first row's time, which is on the fitted line: across n rows the line
 * and the frame part by up to n × the slew, all of it in the step to the next frame. Holding the
 * slew to MAX_STEP_ERROR / (n + 1) keeps every step, inside a frame or across two, within
 * MAX_STEP_ERROR of the fitted period (and of the nominal one). At 250 Hz (3-row frames) that is
 * 0.025 %, 0.25 ms per second: still 10 times a crystal's error, and an initial latency of 10 ms is
 * taken out in 40 s.
 */
export function maxSlewFor(rate: number): number {
  return MAX_STEP_ERROR / (frameRows(rate) + 1);
}

/** Where rows go during a measurement, with the row's µV. */
export type RowTap = (row: SequencedRow, microvolts: Float32Array) => void;

export class BlockMaker {
  private readonly sequencer: Sequencer;
  private readonly clock: SampleClock;
  private rows: SequencedRow[] = [];
  private discontinuity = false;
  /** When the last packet pushed arrived. */
  private lastAt = 0;
  tap: RowTap | undefined;

  constructor(
    daisy: boolean,
    rate: number,
    clockOptions: SampleClockOptions | undefined,
    /** µV per count of each channel, at its present gain. */
    private readonly scale: () => readonly number[],
    private readonly emit: (samples: LiveSamples) => void,
  ) {
    this.sequencer = new Sequencer(daisy);
    this.clock = new SampleClock(rate, { maxSlew: maxSlewFor(rate), ...clockOptions });
  }

  get lostRows(): number {
    return this.sequencer.lostRows;
  }

  /** A new stream (after `b`): new counter, new time line. */
  restart(): void {
    this.rows = [];
    this.sequencer.restart();
    this.clock.reanchor();
  }

  /** The next block does not continue the last one (a gain change, a reset, a reconnection). */
  markDiscontinuity(): void {
    this.discontinuity = true;
  }

  /** One packet of a delivery that arrived at `at`, with `after` more packets after it in it. */
  push(packet: CytonPacket, at: number, after: number): void {
    this.take(this.sequencer.push(packet, at, after));
    this.lastAt = at;
  }

  /** The stream stops: the rows the sequencer still holds (a gap being judged) leave as a block. */
  drain(): void {
    this.take(this.sequencer.drain());
    this.flush();
  }

  private take(outputs: readonly SequencerOutput[]): void {
    for (const out of outputs) {
      if (out.kind === 'restart') {
        this.flush();
        this.clock.reanchor();
        this.discontinuity = true;
        continue;
      }
      if (out.row.lostBefore > 0) this.flush();
      this.rows.push(out.row);
    }
  }

  /** Emits the rows gathered so far as one block, stamped for the arrival of its last row. */
  flush(): void {
    const at = this.lastAt;
    const rows = this.rows;
    if (rows.length === 0) return;
    this.rows = [];
    const scale = this.scale();
    const width = scale.length;
    const data = new Float32Array(rows.length * width);
    rows.forEach((row, r) => {
      for (let c = 0; c < width; c++) data[r * width + c] = (row.counts[c] ?? 0) * (scale[c] as number);
    });
    if (this.tap !== undefined) {
      const tap = this.tap;
      rows.forEach((row, r) => {
        tap(row, data.subarray(r * width, (r + 1) * width));
      });
      return;
    }
    const first = rows[0] as SequencedRow;
    const last = rows[rows.length - 1] as SequencedRow;
    const timestamp = this.clock.place(first.index, last.index, at);
    const lost = first.lostBefore;
    const discontinuity = lost > 0 || this.discontinuity;
    this.discontinuity = false;
    // Each row on the fitted line: row r at timestamp + r × the line's period.
    this.emit({ data, rows: rows.length, timestamp, period: this.clock.period, lost, discontinuity });
  }
}
