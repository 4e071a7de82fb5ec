/**
 * Converts a multichannel stream from one sample rate to another (used by eeg-source when the
 * device already acquires at another rate than the node asks for).
 *
 * Method: rational resampling by L/M (the rates' ratio in lowest terms): insert L−1 zeros after
 * every input sample (scaled by L to keep the gain), low-pass the result with an order-8 Butterworth
 * (dsp/design.ts) at 0.45 × the lower of the two rates, then keep every M-th sample. The low-pass
 * removes the images of upsampling and the aliases of downsampling. It is causal, so the output lags
 * by the filter's group delay (a few samples of the lower rate) and, like any IIR, its phase is not
 * linear: fine for monitoring and band-power work, not for sub-sample timing. The headset's rates
 * are 250·2^k, so in practice either L or M is 1.
 */
import { designFilter } from '../dsp/design.js';
import { SosFilter } from '../dsp/sos.js';
import type { Frame } from './frame.js';

function gcd(a: number, b: number): number {
  let x = a;
  let y = b;
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

export class RateConverter {
  private readonly up: number;
  private readonly down: number;
  private readonly filter: SosFilter;
  /** Index, in the upsampled stream, of the next sample to keep, relative to the next block. */
  private phase = 0;

  constructor(
    readonly inRate: number,
    readonly outRate: number,
    readonly channels: number,
  ) {
    if (!Number.isInteger(inRate) || !Number.isInteger(outRate) || inRate <= 0 || outRate <= 0) {
      throw new RangeError(`rate conversion needs whole positive rates; got ${inRate} Hz → ${outRate} Hz`);
    }
    const common = gcd(inRate, outRate);
    this.up = outRate / common;
    this.down = inRate / common;
    if (this.up * this.down > 4096) {
      throw new RangeError(`cannot convert ${inRate} Hz to ${outRate} Hz: the ratio is too complex`);
    }
    const cutoff = 0.45 * Math.min(inRate, outRate);
    this.filter = new SosFilter(designFilter({ lowpass: cutoff, order: 8 }, inRate * this.up), channels);
  }

  matches(inRate: number, outRate: number, channels: number): boolean {
    return inRate === this.inRate && outRate === this.outRate && channels === this.channels;
  }

  reset(): void {
    this.filter.reset();
    this.phase = 0;
  }

  /** The converted frame, or undefined when the block yields no output sample yet. */
  process(frame: Frame): Frame | undefined {
    if (frame.discontinuity === true) this.reset();
    const width = this.channels;
    const samples = frame.data.length / width;
    const upsampled = new Float64Array(samples * this.up * width);
    for (let i = 0; i < samples; i++) {
      for (let c = 0; c < width; c++)
        upsampled[i * this.up * width + c] = (frame.data[i * width + c] ?? 0) * this.up;
    }
    this.filter.process(upsampled);
    const total = samples * this.up;
    const first = this.phase;
    const kept: number[] = [];
    let index = first;
    for (; index < total; index += this.down) kept.push(index);
    this.phase = index - total;
    if (kept.length === 0) return undefined;
    const data = new Float32Array(kept.length * width);
    kept.forEach((source, k) => {
      for (let c = 0; c < width; c++) data[k * width + c] = upsampled[source * width + c] ?? 0;
    });
    return {
      seq: frame.seq,
      timestamp: frame.timestamp + (first * 1000) / (this.inRate * this.up),
      sampleRate: this.outRate,
      channels: frame.channels,
      data,
      ...(frame.discontinuity === true ? { discontinuity: true } : {}),
      ...(frame.createdAt === undefined ? {} : { createdAt: frame.createdAt }),
    };
  }
}
