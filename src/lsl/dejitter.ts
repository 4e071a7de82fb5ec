/**
 * The regression line of an LSL stream's time stamps, as liblsl's inlet post-processing fits it
 * (`proc_dejitter`, `postproc_dejitterer` of liblsl 1.12–1.16): a first-order recursive least
 * squares fit of the stamp against the sample's index (t = w0 + n·w1), whose past weighs less by
 * half every `halftime` seconds of samples (90 s, liblsl's default `SmoothingHalftime`). Each
 * sample's time is the line's value at its index once the sample has updated it. The arithmetic is
 * liblsl's, step for step (the integer part of the first stamp taken off for precision, the same
 * start values), so that headsetd's times and those of a liblsl inlet with `proc_dejitter` agree
 * to well under a millisecond on the same stamps.
 *
 * Two differences, both for samples liblsl does not know about: `skip(n)` counts samples known to
 * be lost (the line keeps their place, as liblsl does for samples dropped by its `flush()`), and
 * `update` can bound how far one stamp pulls the line (a stamp seconds off, a clock glitch, would
 * otherwise drag it for minutes).
 */

/** liblsl's default half-life of the fit's memory, s (`tuning.SmoothingHalftime`). */
export const SMOOTHING_HALFTIME_S = 90;

export class Dejitterer {
  /** The whole seconds of the first stamp, taken off every stamp (liblsl's `t0_`). */
  private readonly t0: number;
  /** Index of the next sample, lost samples included. */
  private n = 0;
  private w0 = 0;
  private w1: number;
  private p00 = 1e10;
  private p11 = 1e10;
  private p01 = 0;
  private readonly lambda: number;

  constructor(firstStamp: number, rate: number, halftime = SMOOTHING_HALFTIME_S) {
    this.t0 = Math.trunc(firstStamp);
    this.w1 = 1 / rate;
    this.lambda = 2 ** (-1 / (rate * halftime));
  }

  /** Samples fitted or skipped so far: the index the next sample gets. */
  index(): number {
    return this.n;
  }

  /** The line's slope, s per sample (starts at the nominal period). */
  slope(): number {
    return this.w1;
  }

  /** The line's time of sample index `n`, s. */
  predict(n: number): number {
    return this.w0 + n * this.w1 + this.t0;
  }

  /**
   * Fits the next sample's stamp `t` (s) and returns its time on the updated line. `bound`: the
   * largest distance from the line a stamp may pull with (a stamp farther off counts as that far).
   */
  update(t: number, bound = Number.POSITIVE_INFINITY): number {
    const u1 = this.n++;
    const x = t - this.t0;
    let al = x - (this.w0 + u1 * this.w1);
    if (al > bound) al = bound;
    else if (al < -bound) al = -bound;
    const pi0 = this.p00 + u1 * this.p01;
    const pi1 = this.p01 + u1 * this.p11;
    const gInv = 1 / (this.lambda + pi0 + pi1 * u1);
    const il = 1 / this.lambda;
    this.p00 = il * (this.p00 - pi0 * pi0 * gInv);
    this.p01 = il * (this.p01 - pi0 * pi1 * gInv);
    this.p11 = il * (this.p11 - pi1 * pi1 * gInv);
    this.w0 += al * (this.p00 + this.p01 * u1);
    this.w1 += al * (this.p01 + this.p11 * u1);
    return this.w0 + u1 * this.w1 + this.t0;
  }

  /** Gives the next sample's index without fitting it (a stamp not to be trusted); returns its time on the line. */
  pass(): number {
    return this.predict(this.n++);
  }

  /** `count` samples were lost: the next sample's index is that much further on. */
  skip(count: number): void {
    this.n += count;
  }
}
