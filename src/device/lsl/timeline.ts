/**
 * From the batches of samples an LSL feed delivers to the blocks the live headset frames: values
 * scaled to µV, rows split where samples are missing, and each block's time on this machine's
 * clock.
 *
 * Missing samples: consecutive samples of an outlet are one sample period apart in its time
 * stamps. A step of more than `gap` periods (1.5 unless the argument says otherwise) means rows
 * were lost on the way (the outlet's buffer for this inlet overflowed, or the source skipped
 * them): the block that starts there carries `lost` = the step in periods, rounded, less one, and
 * `discontinuity`; nothing is filled in. A step back by more than `gap` − 1 periods (half a period)
 * is a discontinuity without loss. An outlet that stamps its chunks when it pushes them, rather
 * than when they were sampled, jitters by more than that: a larger `gap` keeps its jitter from
 * reading as losses.
 *
 * Time: a sample's stamp is on the outlet's LSL clock; adding the time correction (the outlet's
 * clock onto this machine's LSL clock, measured with LSL's probes) puts it on this machine's LSL
 * clock (its monotonic clock), and lsl/clock.ts's fixed offset puts that on the wall clock of the
 * frames (ms since the Unix epoch). A block never starts before the previous one ended (its start
 * is raised to that end when a new correction or the outlet's jitter would move it back), so the
 * blocks' times never go backwards.
 */
import { lslToUnixMs } from '../../lsl/clock.js';
import type { LiveSamples } from '../live/driver.js';

/** A step between samples beyond which rows count as lost, in sample periods, by default. */
export const GAP_PERIODS = 1.5;

export class LslTimeline {
  /** The outlet's stamp of the last row passed, s on its clock. */
  private lastStamp: number | undefined;
  /** Where the last block ended, ms on this machine's wall clock. */
  private endMs: number | undefined;
  private pendingDiscontinuity = false;
  private readonly period: number;

  constructor(
    private readonly rate: number,
    /** Multiplier to µV of each column. */
    private scales: readonly number[],
    /** The step, in periods, beyond which rows count as lost. */
    private readonly gapPeriods = GAP_PERIODS,
  ) {
    this.period = 1 / rate;
  }

  /** A new start of the stream (after `stop()`): nothing before it counts, and nothing is marked. */
  restart(): void {
    this.lastStamp = undefined;
    this.pendingDiscontinuity = false;
  }

  /** The outlet came back declaring other units. */
  setScales(scales: readonly number[]): void {
    this.scales = scales;
  }

  /** Another outlet (a new uid): its stamps are not compared with the last one's; the next block is marked. */
  newOutlet(): void {
    this.lastStamp = undefined;
    this.pendingDiscontinuity = true;
  }

  /** The same outlet after its feed broke: rows it sent meanwhile count as lost; the next block is marked. */
  resumed(): void {
    this.pendingDiscontinuity = true;
  }

  /** The blocks of one batch (row-major values, the outlet's stamps), `correction` s added to its stamps. */
  blocks(values: readonly number[], stamps: readonly number[], correction: number): LiveSamples[] {
    const columns = this.scales.length;
    const out: LiveSamples[] = [];
    let start = 0;
    let lost = 0;
    let discontinuity = this.pendingDiscontinuity;
    const flush = (end: number) => {
      if (end <= start) return;
      out.push(this.block(values, stamps, start, end, correction, lost, discontinuity, columns));
    };
    for (let row = 0; row < stamps.length; row++) {
      const stamp = stamps[row] as number;
      if (this.lastStamp !== undefined) {
        const step = stamp - this.lastStamp;
        const gap = step > this.gapPeriods * this.period;
        if (gap || step < -(this.gapPeriods - 1) * this.period) {
          flush(row);
          start = row;
          lost = gap ? Math.max(1, Math.round(step / this.period) - 1) : 0;
          discontinuity = true;
        }
      }
      this.lastStamp = stamp;
    }
    flush(stamps.length);
    if (stamps.length > 0) this.pendingDiscontinuity = false;
    return out;
  }

  private block(
    values: readonly number[],
    stamps: readonly number[],
    start: number,
    end: number,
    correction: number,
    lost: number,
    discontinuity: boolean,
    columns: number,
  ): LiveSamples {
    const rows = end - start;
    const data = new Float32Array(rows * columns);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < columns; c++) {
        data[r * columns + c] = (values[(start + r) * columns + c] as number) * (this.scales[c] as number);
      }
    }
    const mapped = lslToUnixMs((stamps[start] as number) + correction);
    const timestamp = this.endMs === undefined ? mapped : Math.max(mapped, this.endMs);
    this.endMs = timestamp + (rows * 1000) / this.rate;
    return { data, rows, timestamp, lost, discontinuity };
  }
}
