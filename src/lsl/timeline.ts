/**
 * From the batches of samples an LSL feed delivers to timed blocks (the LSL device's blocks, the
 * `lsl-inlet` node's frames): values scaled to their frame unit (µV for a voltage), each row's time
 * on this machine's clock, and rows known to be missing counted.
 *
 * Time, as a liblsl inlet with `proc_clocksync | proc_dejitter | proc_monotonize` gives it: a
 * sample's stamp is on the outlet's LSL clock; the time correction (the outlet's clock onto this
 * machine's LSL clock, measured with LSL's probes) is added; the result is fitted by liblsl's
 * regression of stamp against sample index (dejitter.ts), and the row's time is the line's value,
 * never earlier than the row before. An outlet that stamps its samples when it pushes them, in
 * chunks (OpenBCI GUI: 5 at a time, all with the push's time), thus gets regular times, and one
 * late burst (the sending program stalled) weighs in the fit as one sample among thousands. The
 * blocks carry the first row's time and the framer adds row / rate: a batch is cut wherever that
 * would be more than 0.1 ms from the line. lsl/clock.ts's fixed offset puts the LSL clock on the
 * wall clock of the frames (ms since the Unix epoch).
 *
 * Losses are judged on the stamps' envelope, with the fit's slope: a row whose stamp is more than
 * half a period above every stamp of the last rows (relative to the line; up to 0.5 s of them)
 * opens a question, and that row and the ones after it are held until the stamps answer it:
 * - a later row comes back to the envelope: the jump was paid back (a stall, a late push), nothing
 *   was lost, the rows go on;
 * - the envelope stays up, by k periods, for as long again as the window (8 times the stamps'
 *   spread about the line, in rows, from 16 rows to 0.5 s) and at least 0.25 s: k rows were lost
 *   before that row, which carries `lost` = k and `discontinuity`; the line keeps their place
 *   (nothing is filled in);
 * - no answer within 5 s of rows, or the stream stops first: no loss is reported.
 * A row below the envelope by more than half a period is an early stamp: paid back, it is left out
 * of the fit (its time is the line's); a lasting step back is the outlet's clock stepping back:
 * the stamps after it are moved onto the line, and nothing is lost. Losses are judged once the fit
 * knows the stream (twice the window) and only while its slope is within 0.5 % of the nominal
 * period (0.1 % in the first 10 s, while the fit settles, when jumps are judged at the nominal
 * period): the stamps of a source that does not send at its declared rate say nothing
 * about missing rows (the live headset's rate guard reports such a source). A question still open
 * when the stream pauses for a second is answered "no loss" (reader.ts drains the timeline).
 */
import { lslToUnixMs } from './clock.js';
import { Dejitterer } from './dejitter.js';

/** Consecutive rows on the line: row r is at `timestamp + r × 1000 / rate`. */
export interface LslBlock {
  /** Row-major, one column per channel of the stream, each in its frame unit. */
  readonly data: Float32Array;
  readonly rows: number;
  /** Time of the first row, ms since the Unix epoch on this machine's clock. */
  readonly timestamp: number;
  /** Rows the outlet sent before this block that never came (judged on the stamps); never filled in. */
  readonly lost: number;
  /** The first block after rows lost, or after the outlet came back. */
  readonly discontinuity: boolean;
}

/** How far one stamp may pull the line, s: a clock glitch of seconds counts as this. */
const PULL_BOUND_S = 1;
/** A row's time as the framer computes it (block time + row / rate) stays this close to the line, ms. */
const BLOCK_EPSILON_MS = 0.1;
/**
 * The envelope's window: 8 times the spread of the stamps about the line plus one, in rows (a
 * chunk of 5 stamped together spreads over 4 periods: 40 rows; exact stamps: 16), at least
 * MIN_WINDOW_ROWS and at most WINDOW_S of the stream (and 64 rows).
 */
const WINDOW_S = 0.5;
const MIN_WINDOW_ROWS = 16;
/** The stamps must stay up at least this long before rows count as lost, s. */
const MIN_SETTLE_S = 0.25;
/** The longest a question is held open, s of rows. */
const MAX_HOLD_S = 5;
/** Losses are judged while the fit's slope is this close to the nominal period (relative). */
export const SLOPE_TOLERANCE = 0.005;
/**
 * Until the fit has seen this much of the stream, its slope is still settling (the stamps of
 * chunks pushed together make it wander by tenths of a percent): jumps are judged at the nominal
 * period, and only while the fit is within EARLY_SLOPE_TOLERANCE of it.
 */
const SETTLED_FIT_S = 10;
const EARLY_SLOPE_TOLERANCE = 0.001;

interface Row {
  /** In the frame unit, one per column. */
  readonly values: Float32Array;
  /** The outlet's stamp plus the correction, s on this machine's LSL clock. */
  readonly x: number;
}

/** A row already placed: its index and stamp (moved by the clock steps found so far). */
interface Placed {
  readonly n: number;
  readonly x: number;
}

type Kind = 'fit' | 'late' | 'early';

interface Building {
  readonly timestamp: number;
  readonly lost: number;
  readonly discontinuity: boolean;
  readonly rows: Float32Array[];
}

export class LslTimeline {
  private readonly period: number;
  /** The longest window, rows (the history kept). */
  private readonly window: number;
  /** The window for the stamps' spread seen so far, rows. */
  private active: number;
  private readonly minSettle: number;
  private readonly maxHold: number;
  private fit: Dejitterer | undefined;
  /** Added to the stamps from the last clock step back on, s. */
  private shift = 0;
  /** The last `window` rows fitted as regular ones. */
  private history: Placed[] = [];
  /** Rows waiting for the answer to a question. */
  private held: Row[] = [];
  /** The last row's time, s on the LSL clock: no row is earlier. */
  private lastTime = Number.NEGATIVE_INFINITY;
  private pendingDiscontinuity = false;
  private building: Building | undefined;
  private done: LslBlock[] = [];
  /** Rows lost, over the timeline's life. */
  lostRows = 0;
  /** Clock steps back found, over the timeline's life. */
  clockSteps = 0;

  constructor(
    private readonly rate: number,
    /** Multiplier of each column to its frame unit (formats/units.ts). */
    private scales: readonly number[],
  ) {
    this.period = 1 / rate;
    this.window = Math.max(64, Math.ceil(WINDOW_S * rate));
    this.active = this.window;
    this.minSettle = Math.ceil(MIN_SETTLE_S * rate);
    this.maxHold = Math.ceil(MAX_HOLD_S * rate);
  }

  /** A new start of the stream (after `stop()` and `drain()`): nothing before it counts, nothing is marked. */
  restart(): void {
    this.forget();
    this.pendingDiscontinuity = false;
  }

  /** The outlet came back declaring other units. */
  setScales(scales: readonly number[]): void {
    this.scales = scales;
  }

  /** Another outlet (a new uid), after `drain()`: its stamps are fitted afresh; the next block is marked. */
  newOutlet(): void {
    this.forget();
    this.pendingDiscontinuity = true;
  }

  /** The same outlet after its feed broke (after `drain()`): the next block is marked; a jump in its stamps is judged as ever. */
  resumed(): void {
    this.pendingDiscontinuity = true;
  }

  /** Rows held waiting for the stamps to answer a question. */
  heldRows(): number {
    return this.held.length;
  }

  /** The blocks of one batch (row-major values, the outlet's stamps), `correction` s added to its stamps. */
  blocks(values: readonly number[], stamps: readonly number[], correction: number): LslBlock[] {
    const columns = this.scales.length;
    for (let r = 0; r < stamps.length; r++) {
      const row = new Float32Array(columns);
      for (let c = 0; c < columns; c++) {
        row[c] = (values[r * columns + c] as number) * (this.scales[c] as number);
      }
      this.held.push({ values: row, x: (stamps[r] as number) + correction });
    }
    this.process(false);
    return this.take();
  }

  /** Every row held, released now (the feed ended or the device stops): an open question is answered "no loss". */
  drain(): LslBlock[] {
    this.process(true);
    return this.take();
  }

  private forget(): void {
    this.fit = undefined;
    this.active = this.window;
    this.shift = 0;
    this.history = [];
    this.held = [];
  }

  private take(): LslBlock[] {
    this.close();
    const out = this.done;
    this.done = [];
    return out;
  }

  /** The slope jumps are judged at, when the fit knows the stream well enough to judge one. */
  private judgingSlope(fit: Dejitterer): number | undefined {
    const settled = fit.index() >= SETTLED_FIT_S * this.rate;
    const off = Math.abs(fit.slope() * this.rate - 1);
    const judging =
      fit.index() >= 2 * this.active &&
      this.history.length >= this.active &&
      off <= (settled ? SLOPE_TOLERANCE : EARLY_SLOPE_TOLERANCE);
    if (!judging) return undefined;
    return settled ? fit.slope() : this.period;
  }

  private process(final: boolean): void {
    while (this.held.length > 0) {
      const fit = this.fit;
      if (fit === undefined || this.history.length < MIN_WINDOW_ROWS) {
        this.release(1, 'fit', 0);
        continue;
      }
      // The window follows the spread of the stamps about the line.
      const spread = this.envelope(fit.slope(), fit.index());
      this.active = Math.min(
        this.window,
        Math.max(MIN_WINDOW_ROWS, Math.ceil(8 * ((spread.max - spread.min) / fit.slope() + 1))),
      );
      const slope = this.judgingSlope(fit);
      if (slope === undefined) {
        this.release(1, 'fit', 0);
        continue;
      }
      const half = slope / 2;
      const { min, max } = this.envelope(slope, fit.index());
      const head = (this.held[0] as Row).x + this.shift;
      const answered =
        head > max + half
          ? this.judgeJump(min, slope, final)
          : head < min - half
            ? this.judgeEarly(max, slope, final)
            : this.release(1, 'fit', 0);
      if (!answered) return;
    }
  }

  /** The lowest and highest stamps of the last rows fitted, relative to `slope`, at index `base`. */
  private envelope(slope: number, base: number): { min: number; max: number } {
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const placed of this.history) {
      const q = placed.x - (placed.n - base) * slope;
      if (q < min) min = q;
      if (q > max) max = q;
    }
    return { min, max };
  }

  /** The held rows' stamps relative to the line's slope, from the head's index. */
  private heldLevels(slope: number): number[] {
    return this.held.map((row, k) => row.x + this.shift - k * slope);
  }

  /** True when the last `active` levels stayed within half a period of the earlier ones' extreme, and long enough. */
  private settled(levels: readonly number[], half: number, low: boolean): boolean {
    const cut = levels.length - this.active;
    if (cut < this.active || levels.length < this.minSettle) return false;
    const extreme = (from: number, to: number) => {
      let value = low ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
      for (let k = from; k < to; k++) {
        const level = levels[k] as number;
        value = low ? Math.min(value, level) : Math.max(value, level);
      }
      return value;
    };
    const before = extreme(0, cut);
    const after = extreme(cut, levels.length);
    return low ? after >= before - half : after <= before + half;
  }

  /** The head jumped above the envelope: paid back, or rows lost. False while the stamps have not answered. */
  private judgeJump(min: number, slope: number, final: boolean): boolean {
    const half = slope / 2;
    const levels = this.heldLevels(slope);
    const back = levels.findIndex((level) => level <= min + half);
    if (back > 0) return this.release(back, 'late', 0);
    const settled = this.settled(levels, half, true);
    if (!settled && !final && levels.length < this.maxHold) return false;
    const lost = settled ? Math.round((Math.min(...levels) - min) / slope) : 0;
    return this.release(1, 'fit', Math.max(0, lost));
  }

  /** The head fell below the envelope: an early stamp, or the outlet's clock stepped back. */
  private judgeEarly(max: number, slope: number, final: boolean): boolean {
    const half = slope / 2;
    const levels = this.heldLevels(slope);
    const back = levels.findIndex((level) => level >= max - half);
    if (back > 0) return this.release(back, 'early', 0);
    const settled = this.settled(levels, half, false);
    if (!settled && !final && levels.length < this.maxHold) return false;
    if (!settled) return this.release(1, 'early', 0);
    // A lasting step back: the stamps from here on are moved onto the line.
    this.shift += max - Math.max(...levels);
    this.clockSteps++;
    return true;
  }

  /** Places the first `count` held rows; `lost` rows went missing before the first. Always true. */
  private release(count: number, kind: Kind, lost: number): boolean {
    for (let k = 0; k < count; k++) {
      const row = this.held.shift() as Row;
      const x = row.x + this.shift;
      if (this.fit === undefined) this.fit = new Dejitterer(x, this.rate);
      const fit = this.fit;
      const missing = k === 0 ? lost : 0;
      if (missing > 0) {
        fit.skip(missing);
        this.lostRows += missing;
      }
      const n = fit.index();
      const fitted = kind === 'early' ? fit.pass() : fit.update(x, PULL_BOUND_S);
      if (kind === 'fit') {
        this.history.push({ n, x });
        if (this.history.length > this.window) this.history.shift();
      }
      const time = Math.max(fitted, this.lastTime);
      this.lastTime = time;
      this.place(row.values, lslToUnixMs(time), missing);
    }
    return true;
  }

  /** Adds a row to the block being built, or starts a new block at it. */
  private place(values: Float32Array, ms: number, lost: number): void {
    const b = this.building;
    const continues =
      b !== undefined &&
      lost === 0 &&
      !this.pendingDiscontinuity &&
      Math.abs(b.timestamp + (b.rows.length * 1000) / this.rate - ms) <= BLOCK_EPSILON_MS;
    if (continues) {
      b.rows.push(values);
      return;
    }
    this.close();
    this.building = {
      timestamp: ms,
      lost,
      discontinuity: lost > 0 || this.pendingDiscontinuity,
      rows: [values],
    };
    this.pendingDiscontinuity = false;
  }

  private close(): void {
    const b = this.building;
    if (b === undefined) return;
    this.building = undefined;
    const columns = this.scales.length;
    const data = new Float32Array(b.rows.length * columns);
    b.rows.forEach((row, r) => {
      data.set(row, r * columns);
    });
    this.done.push({
      data,
      rows: b.rows.length,
      timestamp: b.timestamp,
      lost: b.lost,
      discontinuity: b.discontinuity,
    });
  }
}
