/**
 * Second-order-section (biquad cascade) filtering, bit-for-bit the recursion of
 * `scipy.signal.sosfilt`.
 *
 * ## dsp/ at a glance
 * - `sos.ts` (this file): the `Sos` layout and {@link SosFilter}, the streaming multichannel filter.
 * - `butterworth.ts`: `butterworth()` = `scipy.signal.butter(..., output='sos')`.
 * - `notch.ts`: `notch()` = `scipy.signal.iirnotch` as one section; `cascade()`.
 * - `design.ts`: `designFilter()`, the `filter` node's spec (highpass/lowpass/order/notch) → sections.
 * - `spectrum.ts`: Welch PSD, tone amplitude, band power.
 * - `resample.ts`: streaming rational polyphase resampler.
 * - `index.ts`: re-exports the public surface above.
 * - internals: `zpk2sos.ts` (scipy's pairing), `complex.ts` + `fma.ts` (numpy-exact rounding),
 *   `fft.ts` (any-length real DFT on fft.js).
 * Golden vectors: test/fixtures/dsp (make_golden.py writes them with scipy; tests only read them).
 * dsp/ imports nothing of the service; invalid designs throw `RangeError` with a message for a person
 * and the calling node turns it into its API error.
 *
 * ## Numerics
 * Each section runs Direct Form II transposed exactly as scipy's `_sosfilt` does, with the same
 * operation order (`y = b0·x + z0; z0 = b1·x − a1·y + z1; z1 = b2·x − a2·y`), in float64, so for the
 * same coefficients the output is identical to scipy's to the last bit (V8 does not fuse
 * multiply-adds). The filter runs one section at a time over a whole block of one channel: a
 * section's output depends only on its input sequence, so this equals scipy's sample-by-sample
 * loop exactly while keeping coefficients and state in registers.
 *
 * State is kept per channel per section, so consecutive `process` calls equal one call on the
 * concatenation. After each call, state values below 1e-250 in magnitude are set to zero: after
 * long digital silence the decaying state would otherwise turn subnormal and make every
 * multiplication ~100× slower. This changes outputs by less than 1e-250.
 */

/** Second-order sections, n×6 row-major: b0 b1 b2 a0 a1 a2 per section, a0 = 1 (scipy's sos layout). */
export type Sos = Float64Array;

/** State magnitudes below this are flushed to zero after each block (see the file header). */
const SUBNORMAL_GUARD = 1e-250;

/** Checks the layout: a multiple of 6 values, every a0 exactly 1, all finite. */
function validateSos(sos: Sos): number {
  if (sos.length === 0 || sos.length % 6 !== 0) {
    throw new RangeError(`an sos array holds 6 values per section; got ${sos.length} values`);
  }
  const sections = sos.length / 6;
  for (let s = 0; s < sections; s++) {
    if (sos[s * 6 + 3] !== 1) {
      throw new RangeError(`section ${s} has a0 = ${sos[s * 6 + 3]}; sections must be normalised to a0 = 1`);
    }
  }
  for (const v of sos) {
    if (!Number.isFinite(v)) throw new RangeError('an sos array holds a value that is not finite');
  }
  return sections;
}

/**
 * Streaming multichannel second-order-section filter (scipy's `sosfilt` with carried state).
 * Samples are interleaved row-major: `data[i * channels + c]`.
 */
export class SosFilter {
  readonly channels: number;
  readonly sections: number;
  private readonly sos: Float64Array;
  /** [channel][section][z0, z1] */
  private readonly state: Float64Array;
  /** One channel's samples in float64 while they pass the sections; grows with the largest block. */
  private scratch: Float64Array = new Float64Array(0);

  constructor(sos: Sos, channels: number) {
    if (!Number.isInteger(channels) || channels < 1) {
      throw new RangeError(`a filter needs a whole number of channels >= 1; got ${channels}`);
    }
    this.sections = validateSos(sos);
    this.sos = Float64Array.from(sos);
    this.channels = channels;
    this.state = new Float64Array(channels * this.sections * 2);
  }

  /**
   * Filters interleaved row-major samples in place (no `output`) or into `output` (same length;
   * may be the input). State is kept per channel per section (Direct Form II transposed, exactly
   * scipy.signal.sosfilt), so consecutive calls equal one call on the concatenation. Computes in
   * float64 whatever the array types. Returns the array written.
   */
  process(
    input: Float32Array | Float64Array,
    output?: Float32Array | Float64Array,
  ): Float32Array | Float64Array {
    const out = output ?? input;
    const channels = this.channels;
    if (input.length % channels !== 0) {
      throw new RangeError(
        `${input.length} samples do not divide into ${channels} channels (interleaved frames expected)`,
      );
    }
    if (out.length !== input.length) {
      throw new RangeError(`output holds ${out.length} samples, input ${input.length}`);
    }
    const frames = input.length / channels;
    if (frames === 0) return out;
    if (this.scratch.length < frames) this.scratch = new Float64Array(frames);
    const buf = this.scratch;
    for (let c = 0; c < channels; c++) {
      for (let i = 0, j = c; i < frames; i++, j += channels) buf[i] = input[j] as number;
      this.runSections(buf, frames, c);
      for (let i = 0, j = c; i < frames; i++, j += channels) out[j] = buf[i] as number;
    }
    return out;
  }

  /** Zeroes the state of every channel (as if nothing had been filtered yet). */
  reset(): void {
    this.state.fill(0);
  }

  /** Runs every section over `buf[0..n)` of channel `c`, in place. */
  private runSections(buf: Float64Array, n: number, c: number): void {
    const sos = this.sos;
    const state = this.state;
    for (let s = 0; s < this.sections; s++) {
      const k = s * 6;
      const b0 = sos[k] as number;
      const b1 = sos[k + 1] as number;
      const b2 = sos[k + 2] as number;
      const a1 = sos[k + 4] as number;
      const a2 = sos[k + 5] as number;
      const zi = (c * this.sections + s) * 2;
      let z0 = state[zi] as number;
      let z1 = state[zi + 1] as number;
      for (let i = 0; i < n; i++) {
        const x = buf[i] as number;
        const y = b0 * x + z0;
        z0 = b1 * x - a1 * y + z1;
        z1 = b2 * x - a2 * y;
        buf[i] = y;
      }
      state[zi] = Math.abs(z0) < SUBNORMAL_GUARD ? 0 : z0;
      state[zi + 1] = Math.abs(z1) < SUBNORMAL_GUARD ? 0 : z1;
    }
  }
}

/** `scipy.signal.sosfilt(sos, x)`: one channel, zero initial state; returns a new array. */
export function sosfilt(sos: Sos, x: Float64Array): Float64Array {
  const y = Float64Array.from(x);
  new SosFilter(sos, 1).process(y);
  return y;
}
