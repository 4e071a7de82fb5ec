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
 * same coefficients the output is identical to scipy's to the last bit. The loops run in
 * WebAssembly (`sos-kernel.wat`, SIMD without fused multiply-add, so every lane rounds as scipy
 * does): eight channels side by side, one section at a time over a block of samples. A section's
 * output depends only on its input sequence, so this equals scipy's sample-by-sample loop exactly.
 * Why WebAssembly: the recursion is one chain of dependent operations per channel, latency-bound
 * one channel at a time; eight channels in flight make it faster than scipy's compiled loop
 * (docs/performance.md has the measurements).
 *
 * State is kept per channel per section, so consecutive `process` calls equal one call on the
 * concatenation. After each call, state values below 1e-250 in magnitude are set to zero: after
 * long digital silence the decaying state would otherwise turn subnormal and make every
 * multiplication ~100× slower. This changes outputs by less than 1e-250.
 */

import { readFileSync } from 'node:fs';

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
 * The part of the WebAssembly API used here (the ES2023 library has no WebAssembly types and
 * Node's types do not declare them globally).
 */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: object };
};

interface KernelMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** A kernel function: (io or work pointer, ...) as documented in sos-kernel.wat. */
type KernelCopy = (io: number, work: number, frames: number, channels: number, stride: number) => void;

/** The kernel's exports (see sos-kernel.wat for the memory layout they expect). */
interface SosKernel {
  memory: KernelMemory;
  load_f32: KernelCopy;
  load_f64: KernelCopy;
  store_f32: KernelCopy;
  store_f64: KernelCopy;
  filter: (
    work: number,
    frames: number,
    stride: number,
    sos: number,
    sections: number,
    state: number,
  ) => void;
}

/** Compiled once per thread, on first use; each filter instantiates it with a memory of its own. */
let kernelModule: object | undefined;

function instantiateKernel(): SosKernel {
  kernelModule ??= new WebAssembly.Module(readFileSync(new URL('./sos-kernel.wasm', import.meta.url)));
  return new WebAssembly.Instance(kernelModule).exports as unknown as SosKernel;
}

/** Channels the kernel runs side by side; the working buffer pads the channel count to a multiple. */
const LANES = 8;
/** Bytes of the float64 working block: small enough to stay in the L1/L2 cache while sections run. */
const WORK_BYTES = 64 * 1024;
const MAX_BLOCK_FRAMES = 512;
const PAGE_BYTES = 65536;

/**
 * Streaming multichannel second-order-section filter (scipy's `sosfilt` with carried state).
 * Samples are interleaved row-major: `data[i * channels + c]`.
 */
export class SosFilter {
  readonly channels: number;
  readonly sections: number;
  private readonly kernel: SosKernel;
  /** Channel count rounded up to a multiple of LANES (the working buffer's row length). */
  private readonly stride: number;
  /** Frames the kernel filters per call (the working buffer's row count). */
  private readonly blockFrames: number;
  // Byte offsets into the kernel's memory.
  private readonly stateAt: number;
  private readonly workAt: number;
  private readonly ioAt: number;
  /** [section][group of 8 channels][z0 × 8, z1 × 8], a view of the kernel's memory. */
  private readonly state: Float64Array;
  private readonly io32: Float32Array;
  private readonly io64: Float64Array;

  constructor(sos: Sos, channels: number) {
    if (!Number.isInteger(channels) || channels < 1) {
      throw new RangeError(`a filter needs a whole number of channels >= 1; got ${channels}`);
    }
    this.sections = validateSos(sos);
    this.channels = channels;
    this.stride = Math.ceil(channels / LANES) * LANES;
    this.blockFrames = Math.max(1, Math.min(MAX_BLOCK_FRAMES, Math.floor(WORK_BYTES / (this.stride * 8))));
    this.stateAt = this.sections * 48;
    this.workAt = this.stateAt + this.sections * this.stride * 16;
    this.ioAt = this.workAt + this.blockFrames * this.stride * 8;
    const bytes = this.ioAt + this.blockFrames * channels * 8;
    this.kernel = instantiateKernel();
    const memory = this.kernel.memory;
    const pages = Math.ceil(bytes / PAGE_BYTES) - memory.buffer.byteLength / PAGE_BYTES;
    if (pages > 0) memory.grow(pages);
    // The memory never grows again, so these views stay valid for the filter's life.
    new Float64Array(memory.buffer, 0, sos.length).set(sos);
    this.state = new Float64Array(memory.buffer, this.stateAt, this.sections * this.stride * 2);
    this.io32 = new Float32Array(memory.buffer, this.ioAt, this.blockFrames * channels);
    this.io64 = new Float64Array(memory.buffer, this.ioAt, this.blockFrames * channels);
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
    const k = this.kernel;
    const inIo = input instanceof Float32Array ? this.io32 : this.io64;
    const outIo = out instanceof Float32Array ? this.io32 : this.io64;
    const load = input instanceof Float32Array ? k.load_f32 : k.load_f64;
    const store = out instanceof Float32Array ? k.store_f32 : k.store_f64;
    for (let first = 0; first < frames; first += this.blockFrames) {
      const n = Math.min(this.blockFrames, frames - first);
      const from = first * channels;
      const to = from + n * channels;
      // Copy the block in before writing it out: `out` may be `input` itself.
      inIo.set(input.subarray(from, to));
      load(this.ioAt, this.workAt, n, channels, this.stride);
      k.filter(this.workAt, n, this.stride, 0, this.sections, this.stateAt);
      store(this.ioAt, this.workAt, n, channels, this.stride);
      out.set(outIo.subarray(0, to - from), from);
    }
    const state = this.state;
    for (let i = 0; i < state.length; i++) {
      if (Math.abs(state[i] as number) < SUBNORMAL_GUARD) state[i] = 0;
    }
    return out;
  }

  /** Zeroes the state of every channel (as if nothing had been filtered yet). */
  reset(): void {
    this.state.fill(0);
  }
}

/** `scipy.signal.sosfilt(sos, x)`: one channel, zero initial state; returns a new array. */
export function sosfilt(sos: Sos, x: Float64Array): Float64Array {
  const y = Float64Array.from(x);
  new SosFilter(sos, 1).process(y);
  return y;
}
