/**
 * Streaming rational resampler: the rate ratio reduced to L/M (up by L, down by M), one
 * Kaiser-windowed-sinc low-pass FIR run in polyphase form, interleaved multichannel, state carried
 * across calls. Two designs of that FIR share the mechanism: `headsetd`'s own, below, used by
 * `eeg-source` when the device's acquisition rate differs from the node's own rate (the method
 * docs/api.md §Built-in executables describes for users, in full here); and `resample_poly`,
 * scipy's, used by the `resample` node ({@link ResamplerDesign}; its group delay is
 * (10·max(L, M) + M − 10·max(L, M) mod M)/M output samples).
 *
 * ## The filter (design `headsetd`)
 * - Stop band from the lower of the two Nyquist frequencies, min(inRate, outRate)/2, attenuated
 *   ≥ 80 dB (Kaiser β = 7.86): nothing above the new Nyquist aliases (downsampling) and no image
 *   above the old one survives (upsampling).
 * - Pass band up to 0.8 × that Nyquist, ripple < 0.001 dB; 0.8–1.0 × Nyquist is the transition
 *   (e.g. 1000 → 250 Hz: flat to 100 Hz, gone from 125 Hz).
 * - Each polyphase branch is normalised to unit DC gain, so a constant stays exactly constant.
 * - The centre tap is placed at a multiple of M, so the group delay is a whole number of output
 *   samples: {@link Resampler.delaySamples} = ⌈length/(2M)⌉ ≈ 25 · max(L, M)/M, i.e. about
 *   25 samples of the lower rate (≈ 0.1 s at 250 Hz). Output sample n estimates the input signal at
 *   time (n − delaySamples)/outRate; the first delaySamples outputs are the filter's start-up.
 *
 * ## Sample counts
 * Output sample n is produced as soon as the input sample at or before time n/outRate has arrived
 * (the filter is causal), so after T input frames in total, exactly ⌈T·L/M⌉ output frames have been
 * returned, however the input was chunked: the count never drifts, and chunked output equals
 * one-call output bit for bit. Equal rates pass samples through unchanged (delay 0).
 *
 * Computation in float64; output Float32Array. Per call it allocates only the returned array (and
 * grows its history buffer when a larger block than ever before arrives).
 */

/** Stop-band attenuation of the anti-alias/anti-image filter, dB. */
const ATTENUATION_DB = 80;
/** Pass band edge as a fraction of the lower Nyquist frequency. */
const PASSBAND_FRACTION = 0.8;
/** Bound on max(L, M): the prototype filter has ~50·max(L, M) taps (20·max(L, M) for resample_poly). */
export const MAX_RESAMPLE_FACTOR = 4096;

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** Modified Bessel function of the first kind, order 0 (power series; converges fast for β < 20). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const q = (x * x) / 4;
  for (let k = 1; k < 200; k++) {
    term *= q / (k * k);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

/** up/down reduced by their greatest common divisor; a RangeError when a factor exceeds the bound. */
export function reducedRatio(
  up: number,
  down: number,
  what = `the ratio ${up}/${down}`,
): { up: number; down: number } {
  if (!Number.isInteger(up) || !Number.isInteger(down) || up < 1 || down < 1) {
    throw new RangeError(`up (${up}) and down (${down}) must be whole numbers >= 1`);
  }
  const g = gcd(up, down);
  const reduced = { up: up / g, down: down / g };
  if (Math.max(reduced.up, reduced.down) > MAX_RESAMPLE_FACTOR) {
    throw new RangeError(
      `${what} reduces to ${reduced.up}/${reduced.down}; factors above ${MAX_RESAMPLE_FACTOR} are not supported`,
    );
  }
  return reduced;
}

/** Rates as a reduced ratio of integers (rates given to 1 mHz). */
export function rationalRatio(inRate: number, outRate: number): { up: number; down: number } {
  for (const [name, rate] of [
    ['input', inRate],
    ['output', outRate],
  ] as const) {
    if (!Number.isFinite(rate) || rate <= 0)
      throw new RangeError(`${name} rate ${rate} Hz must be a positive number`);
  }
  const scale = Number.isInteger(inRate) && Number.isInteger(outRate) ? 1 : 1000;
  return reducedRatio(
    Math.round(outRate * scale),
    Math.round(inRate * scale),
    `resampling ${inRate} Hz to ${outRate} Hz needs a ratio that`,
  );
}

/** Σ a[ao + k]·b[bo + k] for k < n, four partial sums (independent add chains run in parallel). */
function dot(a: Float64Array, ao: number, b: Float64Array, bo: number, n: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let k = 0;
  for (; k + 3 < n; k += 4) {
    s0 += (a[ao + k] as number) * (b[bo + k] as number);
    s1 += (a[ao + k + 1] as number) * (b[bo + k + 1] as number);
    s2 += (a[ao + k + 2] as number) * (b[bo + k + 2] as number);
    s3 += (a[ao + k + 3] as number) * (b[bo + k + 3] as number);
  }
  for (; k < n; k++) s0 += (a[ao + k] as number) * (b[bo + k] as number);
  return s0 + s1 + (s2 + s3);
}

/**
 * A prototype low-pass FIR at the upsampled rate, gain included: `h[n]` for n = 0 … length − 1,
 * its centre (the tap at zero delay) at `centre`, a multiple of M so that the group delay is a
 * whole number (centre / M) of output samples.
 */
interface Prototype {
  h: Float64Array;
  centre: number;
}

/**
 * The two designs of the resampler: `headsetd`'s own (eeg-source; see the file header) and
 * `resample_poly`, scipy's `resample_poly(x, up, down)` design taken tap for tap:
 * `h = up · firwin(2·half_len + 1, 1/max(up, down), window=('kaiser', 5.0))` with
 * half_len = 10·max(up, down) (a Kaiser-windowed sinc, cut-off at the lower Nyquist frequency,
 * scaled to unit DC gain before the factor up), preceded by `down − half_len mod down` zeros
 * so that its centre falls on a multiple of M.
 */
export type ResamplerDesign = 'headsetd' | 'resample_poly';

function designHeadsetd(up: number, down: number): Prototype {
  const factor = Math.max(up, down);
  // Transition width in radians per upsampled sample: 0.2 × lower Nyquist.
  const transition = (Math.PI * (1 - PASSBAND_FRACTION)) / factor;
  const minLength = Math.ceil((ATTENUATION_DB - 7.95) / (2.285 * transition)) + 1;
  const delay = Math.ceil(minLength / (2 * down)); // output samples
  const centre = delay * down; // upsampled samples; a multiple of M
  const length = 2 * centre + 1;
  const beta = 0.1102 * (ATTENUATION_DB - 8.7);
  const cutoff = (1 + PASSBAND_FRACTION) / 2 / factor; // cycles per upsampled sample × 2
  const i0Beta = besselI0(beta);
  const h = new Float64Array(length);
  for (let n = 0; n < length; n++) {
    const t = n - centre;
    const r = t / centre;
    const window = besselI0(beta * Math.sqrt(Math.max(0, 1 - r * r))) / i0Beta;
    const x = cutoff * t;
    const sinc = t === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
    h[n] = cutoff * sinc * window;
  }
  // Each polyphase branch normalised to unit DC gain: a constant stays exactly constant.
  for (let p = 0; p < up; p++) {
    let sum = 0;
    for (let n = p; n < length; n += up) sum += h[n] as number;
    for (let n = p; n < length; n += up) h[n] = (h[n] as number) / sum;
  }
  return { h, centre };
}

/** scipy's Kaiser β of resample_poly's default window. */
const RESAMPLE_POLY_BETA = 5.0;

function designResamplePoly(up: number, down: number): Prototype {
  const factor = Math.max(up, down);
  const halfLength = 10 * factor;
  const cutoff = 1 / factor;
  const numtaps = 2 * halfLength + 1;
  const i0Beta = besselI0(RESAMPLE_POLY_BETA);
  const taps = new Float64Array(numtaps);
  let sum = 0;
  for (let n = 0; n < numtaps; n++) {
    const m = n - halfLength;
    const r = m / halfLength;
    const window = besselI0(RESAMPLE_POLY_BETA * Math.sqrt(Math.max(0, 1 - r * r))) / i0Beta;
    const x = cutoff * m;
    const sinc = m === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
    taps[n] = cutoff * sinc * window;
    sum += taps[n] as number;
  }
  const prePad = down - (halfLength % down);
  const h = new Float64Array(prePad + numtaps);
  for (let n = 0; n < numtaps; n++) h[prePad + n] = ((taps[n] as number) / sum) * up;
  return { h, centre: halfLength + prePad };
}

/**
 * Polyphase coefficient table: `phases[p·taps + j]` multiplies input x[base − (taps − 1) + j] for
 * output phase p (each branch stored oldest-sample first, so the inner loop runs forward).
 */
function polyphase(
  { h, centre }: Prototype,
  up: number,
  down: number,
): { phases: Float64Array; taps: number; delay: number } {
  const taps = Math.ceil(h.length / up);
  const phases = new Float64Array(up * taps);
  for (let p = 0; p < up; p++) {
    for (let k = 0; k < taps; k++) phases[p * taps + (taps - 1 - k)] = h[p + k * up] ?? 0;
  }
  return { phases, taps, delay: centre / down };
}

/**
 * Streaming rational resampler (polyphase windowed-sinc FIR with anti-alias low-pass),
 * interleaved multichannel, state carried across calls; see the file header for the filter, the
 * delay and the exact output count ⌈T·outRate/inRate⌉ after T input frames.
 */
export class Resampler {
  readonly inRate: number;
  readonly outRate: number;
  readonly channels: number;
  /** Upsampling factor L of the reduced ratio outRate/inRate = L/M. */
  readonly up: number;
  /** Downsampling factor M. */
  readonly down: number;
  /** Group delay in output samples (a whole number; 0 when the rates are equal). */
  readonly delaySamples: number;
  private readonly phases: Float64Array;
  private readonly taps: number;
  /** Per channel: the last taps−1 inputs, then the current block (planar, float64). */
  private history: Float64Array;
  private capacity: number;
  /** Input frames consumed so far, and the next output's input index and phase. */
  private consumed = 0;
  private base = 0;
  private phase = 0;

  /**
   * `options.ratio` gives up/down themselves (reduced here) for a rate change that no 1 mHz rate
   * states exactly (250 Hz × 2/3); `outRate` is then only told, not used.
   */
  constructor(
    inRate: number,
    outRate: number,
    channels: number,
    options: { design?: ResamplerDesign; ratio?: { up: number; down: number } } = {},
  ) {
    if (!Number.isInteger(channels) || channels < 1) {
      throw new RangeError(`a resampler needs a whole number of channels >= 1; got ${channels}`);
    }
    const { up, down } =
      options.ratio === undefined
        ? rationalRatio(inRate, outRate)
        : reducedRatio(options.ratio.up, options.ratio.down);
    const design = options.design ?? 'headsetd';
    this.inRate = inRate;
    this.outRate = outRate;
    this.channels = channels;
    this.up = up;
    this.down = down;
    if (up === 1 && down === 1) {
      this.phases = new Float64Array(0);
      this.taps = 1;
      this.delaySamples = 0;
    } else {
      const table = polyphase(
        design === 'resample_poly' ? designResamplePoly(up, down) : designHeadsetd(up, down),
        up,
        down,
      );
      this.phases = table.phases;
      this.taps = table.taps;
      this.delaySamples = table.delay;
    }
    this.capacity = 0;
    this.history = new Float64Array(0);
    this.ensureCapacity(1024);
  }

  /** Resamples interleaved frames; returns the output frames that became available (interleaved). */
  process(input: Float32Array): Float32Array {
    const channels = this.channels;
    if (input.length % channels !== 0) {
      throw new RangeError(`${input.length} samples do not divide into ${channels} channels`);
    }
    const frames = input.length / channels;
    if (this.up === 1 && this.down === 1) {
      this.consumed += frames;
      return input.slice();
    }
    this.ensureCapacity(frames);
    const taps = this.taps;
    const stride = taps - 1 + this.capacity;
    const history = this.history;
    for (let c = 0; c < channels; c++) {
      const row = c * stride + taps - 1;
      for (let i = 0, j = c; i < frames; i++, j += channels) history[row + i] = input[j] as number;
    }
    const first = this.consumed; // input index of history[row]
    const end = first + frames;
    const count = this.outputsUpTo(end) - this.outputsUpTo(first);
    const out = new Float32Array(count * channels);
    const phases = this.phases;
    let base = this.base;
    let phase = this.phase;
    for (let n = 0; n < count; n++) {
      const start = base - first; // history offset of x[base − (taps − 1)] within a channel row
      const coef = phase * taps;
      for (let c = 0; c < channels; c++) {
        out[n * channels + c] = dot(phases, coef, history, c * stride + start, taps);
      }
      phase += this.down;
      if (phase >= this.up) {
        const whole = Math.floor(phase / this.up);
        base += whole;
        phase -= whole * this.up;
      }
    }
    this.base = base;
    this.phase = phase;
    this.consumed = end;
    // Keep the last taps−1 inputs of each channel at the front for the next block.
    for (let c = 0; c < channels; c++) {
      const row = c * stride;
      history.copyWithin(row, row + frames, row + frames + taps - 1);
    }
    return out;
  }

  /**
   * The largest magnitude an output can have per unit of input magnitude: the largest Σ|h| over
   * the polyphase branches (1 when the rates are equal). A bound on the filter's overshoot.
   */
  get gainBound(): number {
    if (this.up === 1 && this.down === 1) return 1;
    let bound = 0;
    for (let p = 0; p < this.up; p++) {
      let sum = 0;
      for (let j = 0; j < this.taps; j++) sum += Math.abs(this.phases[p * this.taps + j] as number);
      bound = Math.max(bound, sum);
    }
    return bound;
  }

  /** Forgets all history, as if newly constructed. */
  reset(): void {
    this.history.fill(0);
    this.consumed = 0;
    this.base = 0;
    this.phase = 0;
  }

  /** Output frames produced after `frames` input frames in total: ⌈frames·L/M⌉. */
  private outputsUpTo(frames: number): number {
    const a = frames * this.up + this.down - 1;
    return (a - (a % this.down)) / this.down;
  }

  private ensureCapacity(frames: number): void {
    if (frames <= this.capacity) return;
    const capacity = Math.max(frames, this.capacity * 2);
    const keep = this.taps - 1;
    const stride = keep + capacity;
    const grown = new Float64Array(this.channels * stride);
    const oldStride = keep + this.capacity;
    for (let c = 0; c < this.channels && this.capacity > 0; c++) {
      grown.set(this.history.subarray(c * oldStride, c * oldStride + keep), c * stride);
    }
    this.history = grown;
    this.capacity = capacity;
  }
}
