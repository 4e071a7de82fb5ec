/**
 * The rate guard of a live amplifier: does the source send at the rate it declares, and are its
 * frames' times possible?
 *
 * A live source is believed about its rate: its samples are framed, resampled and recorded at the
 * rate it declares. One that sends faster (an LSL outlet declaring 250 Hz and pushing 2000 Hz, a
 * board sending ten times its rate) would otherwise make a recording eight times too long, and
 * frames timed by the count of samples would run ever further ahead of the moment they arrived.
 *
 * The measure: the rows that arrived (lost ones included) against the rows the declared rate
 * promises since the first block of the measure arrived, on this machine's clock. A source is
 * - faster than declared when it is more than AHEAD_TOLERANCE_MS of samples ahead and its measured
 *   rate is more than RATE_TOLERANCE above the declared one;
 * - slower than declared when, after MEASURE_SPAN_MS, it is more than BEHIND_TOLERANCE_MS of
 *   samples behind and its measured rate is more than RATE_TOLERANCE below (a link that stalls
 *   that long without losing samples reads so too, until it catches up).
 * Bursts (an LSL chunk, a Bluetooth dongle's batch) and the drift of a crystal (parts per million)
 * are far inside these bounds. Once reported, the source is measured again in spans of
 * MEASURE_SPAN_MS, and the report is withdrawn after a span within both bounds. A block after a
 * break (`discontinuity` without lost rows: a reconnection) starts a new measure.
 *
 * Times: whatever the driver says, a frame is never timed before the frame before it (over the
 * device's life, across reconnections and runs) nor more than AHEAD_TOLERANCE_MS after the moment
 * its first row arrived. An honest source is never touched by either bound (its samples were
 * taken before they arrived).
 */
import type { LiveSamples } from './driver.js';

/** Relative difference between measured and declared rate beyond which a source is reported. */
export const RATE_TOLERANCE = 0.02;
/** Samples ahead of the declared rate, in ms of them, beyond which a faster source is reported; also the most a frame's time may be ahead of its arrival. */
export const AHEAD_TOLERANCE_MS = 1000;
/** Samples behind the declared rate, in ms of them, beyond which a slower source is reported. */
export const BEHIND_TOLERANCE_MS = 2000;
/** The span a slower source is measured over before it is reported, and of each measure after a report. */
export const MEASURE_SPAN_MS = 10_000;

/** A change of the guard's verdict, for the device's events. */
export interface RateVerdict {
  readonly kind: 'mismatch' | 'recovered';
  /** One sentence for a person. */
  readonly message: string;
}

export class RateGuard {
  /** When the measure's first block arrived, ms on the wall clock. */
  private anchorMs: number | undefined;
  /** Rows (lost ones included) since then, the first block's included. */
  private rows = 0;
  /** When the current block arrived. */
  private arrivalMs = 0;
  private lastStamp = Number.NEGATIVE_INFINITY;
  private mismatch: string | undefined;

  constructor(
    private rate: number,
    /** The device in words, for the messages. */
    private readonly deviceName: string,
  ) {}

  /** A run starts (at `rate`) or ends: a new measure, and no report stands. Frame times still never go back. */
  restart(rate: number): void {
    this.rate = rate;
    this.anchorMs = undefined;
    this.mismatch = undefined;
  }

  /** Why the source is reported now, or undefined. */
  problem(): string | undefined {
    return this.mismatch;
  }

  /** A block arrived at `nowMs` (wall clock): counted; returns the verdict when it changes. */
  observe(block: LiveSamples, nowMs: number): RateVerdict | undefined {
    this.arrivalMs = nowMs;
    if (this.anchorMs === undefined || (block.discontinuity && block.lost === 0)) {
      this.anchorMs = nowMs;
      this.rows = block.rows;
      return undefined;
    }
    this.rows += block.lost + block.rows;
    const elapsed = nowMs - this.anchorMs;
    const aheadMs = (this.rows * 1000) / this.rate - elapsed;
    const measured = elapsed > 0 ? (this.rows * 1000) / elapsed : Number.POSITIVE_INFINITY;
    const faster = aheadMs > AHEAD_TOLERANCE_MS && measured > this.rate * (1 + RATE_TOLERANCE);
    const slower =
      elapsed >= MEASURE_SPAN_MS &&
      -aheadMs > BEHIND_TOLERANCE_MS &&
      measured < this.rate * (1 - RATE_TOLERANCE);
    if (this.mismatch === undefined) {
      if (!faster && !slower) return undefined;
      const hz = faster && !Number.isFinite(measured) ? 'many' : measured.toFixed(measured < 10 ? 2 : 0);
      this.mismatch = faster
        ? `${this.deviceName} sends faster than the ${this.rate} Hz it declares: ${this.rows} samples arrived in ${(elapsed / 1000).toFixed(2)} s (${hz} Hz). Its samples are still framed and recorded as ${this.rate} Hz; their times are held to when they arrived. Check the rate the source declares.`
        : `${this.deviceName} sends slower than the ${this.rate} Hz it declares: ${this.rows} samples arrived in ${(elapsed / 1000).toFixed(1)} s (${hz} Hz). Check the rate the source declares, or its link.`;
      this.anchorMs = nowMs;
      this.rows = 0;
      return { kind: 'mismatch', message: this.mismatch };
    }
    if (elapsed < MEASURE_SPAN_MS) return undefined;
    // A span measured while reported: within both bounds, the report is withdrawn.
    this.anchorMs = nowMs;
    this.rows = 0;
    const within =
      Math.abs(measured / this.rate - 1) <= RATE_TOLERANCE && Math.abs(aheadMs) <= AHEAD_TOLERANCE_MS;
    if (!within) return undefined;
    this.mismatch = undefined;
    return {
      kind: 'recovered',
      message: `${this.deviceName} sends at its declared ${this.rate} Hz again (${measured.toFixed(measured < 10 ? 2 : 0)} Hz over the last ${(elapsed / 1000).toFixed(0)} s).`,
    };
  }

  /**
   * The time of a frame whose first row the driver places at `proposed` (ms), in the block that
   * arrived last: never before the previous frame's, never more than AHEAD_TOLERANCE_MS after
   * that block's arrival.
   */
  stamp(proposed: number): number {
    const time = Math.max(this.lastStamp, Math.min(proposed, this.arrivalMs + AHEAD_TOLERANCE_MS));
    this.lastStamp = time;
    return time;
  }
}
