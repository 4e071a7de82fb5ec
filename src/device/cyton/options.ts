/** The Cyton driver's tunables: the defaults suit a real board; the tests shorten them. */
import type { SampleClockOptions } from './sample-clock.js';

export interface CytonDriverOptions {
  /** How long the board has to answer `v` with its banner, ms (default 4000). */
  readonly resetTimeoutMs?: number;
  /** How long a command's answer may take, ms (default 1500). */
  readonly answerTimeoutMs?: number;
  /** Between two attempts to reopen a lost port, ms (default 1000). */
  readonly reopenIntervalMs?: number;
  /**
   * While streaming, how long without a packet before the board is declared lost and reset, ms
   * (default 2000; the board sends 250 packets per second).
   */
  readonly stallTimeoutMs?: number;
  /** Lead-off measurement: rows discarded after switching the current on, and rows measured, in ms. */
  readonly impedanceSettleMs?: number;
  readonly impedanceWindowMs?: number;
  readonly clock?: SampleClockOptions;
  /** This machine's clock, ms since the epoch (tests). */
  readonly now?: () => number;
}
