/**
 * Time stamps for a board without a clock of its own: the Cyton's samples carry only a sample
 * counter, taken at the board's crystal rate. This maps the row index (counting lost rows) onto
 * this machine's clock, from the times the rows arrive.
 *
 * The arrival of a row is its true time plus a delay that is never negative and varies (the radio,
 * the FTDI chip's latency timer, USB polling, the event loop): arrivals come in bursts. The mapping
 * is a line, t(index) = anchorTime + (index - anchorIndex) × period, held to the lower envelope of
 * the arrivals: the earliest arrivals (least delay) over the last `windowMs` set where the line
 * should be. The line is never moved by a jump: its slope is changed, by at most `maxSlew` (a
 * fraction of the nominal period, 1e-3 by default, 1 ms per second; the Cyton's blocks hold it
 * lower so that frames keep every step within 1e-3, ./blocks.ts), so that the error is taken
 * out over `settleMs`. Hence:
 * - time stamps never go backwards and successive rows are one period apart within `maxSlew`;
 * - a burst of late arrivals does not move them (only the earliest arrivals count);
 * - the board's crystal (tens of ppm off) is followed, within a fraction of a millisecond;
 * - at the start the line passes through the first arrival; an initial latency is slewed out.
 * `reanchor()` (a reset, a reopened port, a stop and start) starts a new line at the next arrival.
 */

export interface SampleClockOptions {
  /** How long arrivals are remembered for the lower envelope, ms. */
  readonly windowMs?: number;
  /** Largest relative change of the period, both ways. */
  readonly maxSlew?: number;
  /** Time over which an error of the line is taken out, ms. */
  readonly settleMs?: number;
}

export class SampleClock {
  private readonly nominal: number;
  private readonly windowMs: number;
  private readonly maxSlew: number;
  private readonly settleMs: number;
  private anchor: { index: number; time: number; period: number } | undefined;
  /** Recent arrivals: the last row index of a block and when it arrived. */
  private arrivals: { index: number; at: number }[] = [];
  /**
   * The most arrivals kept: one per row of the window. A board delivers no more blocks than rows;
   * more arrivals in the window than that (a stream of made-up or lost-counted packets) must not
   * grow the memory, nor the time each block takes to place.
   */
  private readonly maxArrivals: number;

  constructor(rate: number, options: SampleClockOptions = {}) {
    this.nominal = 1000 / rate;
    this.windowMs = options.windowMs ?? 2000;
    this.maxSlew = options.maxSlew ?? 1e-3;
    this.settleMs = options.settleMs ?? 5000;
    this.maxArrivals = Math.ceil((rate * this.windowMs) / 1000) + 1;
  }

  /** Arrivals remembered now (at most one per row of the window). */
  get remembered(): number {
    return this.arrivals.length;
  }

  /** The present period, ms per row. */
  get period(): number {
    return this.anchor?.period ?? this.nominal;
  }

  /** Starts a new line at the next arrival. */
  reanchor(): void {
    this.anchor = undefined;
    this.arrivals = [];
  }

  /** The time (ms since the epoch) of row `index`, on the present line. */
  timeOf(index: number): number {
    const a = this.anchor;
    if (a === undefined) throw new Error('no arrival yet');
    return a.time + (index - a.index) * a.period;
  }

  /**
   * Records that rows up to `lastIndex` had arrived at `at` and answers the time of row
   * `firstIndex` (the first row of the block).
   */
  place(firstIndex: number, lastIndex: number, at: number): number {
    if (this.anchor === undefined) {
      this.anchor = { index: lastIndex, time: at, period: this.nominal };
      this.arrivals = [{ index: lastIndex, at }];
      return this.timeOf(firstIndex);
    }
    this.arrivals.push({ index: lastIndex, at });
    let old = 0;
    while (
      old < this.arrivals.length - 1 &&
      (at - (this.arrivals[old] as { at: number }).at > this.windowMs ||
        this.arrivals.length - old > this.maxArrivals)
    ) {
      old++;
    }
    if (old > 0) this.arrivals.splice(0, old);
    // The lower envelope's distance from the line: positive when the line runs early.
    let floor = Number.POSITIVE_INFINITY;
    for (const arrival of this.arrivals) floor = Math.min(floor, arrival.at - this.timeOf(arrival.index));
    // Re-anchor at the first row of this block (continuous), then set the slope that removes
    // `floor` over settleMs, within the slew limit.
    const time = this.timeOf(firstIndex);
    const slew = Math.max(-this.maxSlew, Math.min(this.maxSlew, floor / this.settleMs));
    this.anchor = { index: firstIndex, time, period: this.nominal * (1 + slew) };
    return time;
  }
}
