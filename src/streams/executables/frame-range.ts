/**
 * The `range` of frames (core/frame.ts): the largest magnitude a source can ever produce, and
 * how processors carry it. The recorder turns it into the file's physical range so that no sample
 * clips (docs/recording.md §Physical range).
 *
 * - eeg-source / device frames: the ADC's full scale at the configured gain, 4.5 V / gain in µV
 *   (device/acquisition.ts).
 * - signal-generator: Σ|amplitudes| + 6 × noise RMS (its Gaussian noise is clamped at ±6σ).
 * - filter: range_in × ‖h‖₁, the ℓ1 norm of the cascade's impulse response (for any input bounded
 *   by R, |y[n]| = |Σ h[k]·x[n−k]| ≤ R·Σ|h[k]|), computed once per design by {@link sosL1Norm}.
 * - eeg-source converting rates: range_in × the largest ℓ1 norm of the resampler's polyphase
 *   branches ({@link resamplerL1}).
 */
import { Resampler } from '../../dsp/resample.js';

/** The signal generator clamps its standard normal deviates at ± this many σ. */
export const NOISE_CLAMP_SIGMA = 6;

/** Relative margin added to a computed ℓ1 norm: covers the truncated tail and float32 output rounding. */
const L1_MARGIN = 1e-3;
/** The impulse response is summed until the slowest pole's envelope ρ^n falls under this. */
const TAIL_ENVELOPE = 1e-15;
/** At most this many samples are summed (a pole at ρ = 1 − 1e-5 needs 3.5 million). */
const MAX_L1_SAMPLES = 1 << 23;

/** Largest pole magnitude of a second-order section with denominator 1 + a1·z⁻¹ + a2·z⁻². */
function sectionPoleRadius(a1: number, a2: number): number {
  const discriminant = a1 * a1 - 4 * a2;
  if (discriminant < 0) return Math.sqrt(Math.abs(a2));
  const root = Math.sqrt(discriminant);
  return Math.max(Math.abs((-a1 + root) / 2), Math.abs((-a1 - root) / 2));
}

/**
 * ‖h‖₁ of a cascade of second-order sections (scipy's sos layout: b0 b1 b2 a0 a1 a2, a0 = 1), plus
 * a 0.1 % margin: an upper bound on |output| / max|input| for any input. Summed in float64 until
 * the slowest pole's envelope is under 1e-15 (at most 2^23 samples).
 *
 * A design with a pole very near the unit circle (a 0.1 Hz high-pass at 16 kHz) needs millions of
 * samples: hundreds of ms of CPU. `advance` sums a slice at a time, so a node can spread the work
 * over turns of its thread's event loop instead of stalling its stream (and its watchdog).
 */
export class SosL1Norm {
  private readonly sections: number;
  private readonly samples: number;
  private readonly z0: Float64Array;
  private readonly z1: Float64Array;
  private n = 0;
  private sum = 0;

  constructor(private readonly sos: Float64Array) {
    this.sections = Math.floor(sos.length / 6);
    let radius = 0;
    for (let s = 0; s < this.sections; s++) {
      radius = Math.max(radius, sectionPoleRadius(sos[s * 6 + 4] ?? 0, sos[s * 6 + 5] ?? 0));
    }
    this.samples = !(radius < 1)
      ? 0 // unstable: no bound (value is +∞)
      : radius === 0
        ? 3 * this.sections + 1
        : Math.min(MAX_L1_SAMPLES, Math.ceil(Math.log(TAIL_ENVELOPE) / Math.log(radius)) + 3 * this.sections);
    this.sum = this.samples === 0 ? Number.POSITIVE_INFINITY : 0;
    this.z0 = new Float64Array(this.sections);
    this.z1 = new Float64Array(this.sections);
  }

  /** Sums up to `maxSamples` more samples of the impulse response; true once the sum is complete. */
  advance(maxSamples: number): boolean {
    const { sos, sections, z0, z1 } = this;
    const end = Math.min(this.samples, this.n + maxSamples);
    let sum = this.sum;
    for (let n = this.n; n < end; n++) {
      let x = n === 0 ? 1 : 0;
      for (let s = 0; s < sections; s++) {
        const o = s * 6;
        // Direct Form II transposed, as dsp/sos.ts.
        const y = (sos[o] as number) * x + (z0[s] as number);
        z0[s] = (sos[o + 1] as number) * x - (sos[o + 4] as number) * y + (z1[s] as number);
        z1[s] = (sos[o + 2] as number) * x - (sos[o + 5] as number) * y;
        x = y;
      }
      sum += Math.abs(x);
    }
    this.sum = sum;
    this.n = end;
    return this.done;
  }

  get done(): boolean {
    return this.n >= this.samples;
  }

  /** The bound, margin included; meaningful once `done`. */
  get value(): number {
    return this.sum * (1 + L1_MARGIN);
  }
}

/** ‖h‖₁ of a cascade, computed at once (see {@link SosL1Norm}). */
export function sosL1Norm(sos: Float64Array): number {
  const norm = new SosL1Norm(sos);
  norm.advance(Number.POSITIVE_INFINITY);
  return norm.value;
}

/** The range of a signal generator's output: Σ|amplitudes| + 6σ of its noise. */
export function generatorRange(amplitudes: readonly number[], noiseRms: number): number {
  return amplitudes.reduce((sum, a) => sum + Math.abs(a), 0) + NOISE_CLAMP_SIGMA * noiseRms;
}

/** The range after a processor of gain bound `l1`; undefined stays undefined (unknown). */
export function scaledRange(range: number | undefined, l1: number): number | undefined {
  return range === undefined || !Number.isFinite(range * l1) ? undefined : range * l1;
}

/**
 * The largest ℓ1 norm among the polyphase branches of dsp/resample.ts's converter from `inRate` to
 * `outRate` (plus the 0.1 % margin): a bound on |output| / max|input|. Measured through the
 * converter itself: output n uses branch (n·M) mod L, so M impulse responses (impulse at input
 * 0 … M−1) hold every coefficient of every branch exactly once, summed per branch.
 */
export function resamplerL1(inRate: number, outRate: number): number {
  const probe = new Resampler(inRate, outRate, 1);
  const L = probe.up;
  const M = probe.down;
  if (L === 1 && M === 1) return 1;
  // Inputs one output depends on: taps = ⌈length/L⌉ with length ≤ 2M·delay; twice that for room.
  const span = Math.ceil((4 * M * (probe.delaySamples + 1)) / L) + 4;
  const sums = new Float64Array(L);
  for (let k0 = 0; k0 < M; k0++) {
    probe.reset();
    const input = new Float32Array(k0 + span);
    input[k0] = 1;
    const out = probe.process(input);
    for (let n = 0; n < out.length; n++) sums[(n * M) % L] = (sums[(n * M) % L] ?? 0) + Math.abs(out[n] ?? 0);
  }
  let max = 0;
  for (const sum of sums) max = Math.max(max, sum);
  return max * (1 + L1_MARGIN);
}
