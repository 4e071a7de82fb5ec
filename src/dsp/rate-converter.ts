/**
 * Converts a multichannel frame stream from one sample rate to another (eeg-source, when the
 * device already acquires at another rate than the node asks for). The method is dsp/resample.ts's
 * streaming rational resampler (L/M polyphase, Kaiser-windowed sinc, ≥ 80 dB stop band from the
 * lower Nyquist frequency, pass band flat to 0.8 × it, linear phase): see that file. Its group
 * delay is a whole number of output samples; output timestamps are shifted back by it, so they
 * give the time each output sample represents. Sample counts never drift across frames.
 */
import { Resampler } from './resample.js';
import type { Frame } from '../core/frame.js';

export class RateConverter {
  private readonly resampler: Resampler;
  /** Wall time of the first input sample since the last reset, ms; undefined before it. */
  private origin: number | undefined;
  private produced = 0;

  constructor(
    readonly inRate: number,
    readonly outRate: number,
    readonly channels: number,
  ) {
    this.resampler = new Resampler(inRate, outRate, channels);
  }

  matches(inRate: number, outRate: number, channels: number): boolean {
    return inRate === this.inRate && outRate === this.outRate && channels === this.channels;
  }

  reset(): void {
    this.resampler.reset();
    this.origin = undefined;
    this.produced = 0;
  }

  /** The converted frame, or undefined when the block yields no output sample yet. */
  process(frame: Frame): Frame | undefined {
    if (frame.discontinuity === true) this.reset();
    this.origin ??= frame.timestamp;
    const data = this.resampler.process(frame.data);
    if (data.length === 0) return undefined;
    const index = this.produced - this.resampler.delaySamples;
    this.produced += data.length / this.channels;
    return {
      seq: frame.seq,
      timestamp: this.origin + (index * 1000) / this.outRate,
      sampleRate: this.outRate,
      channels: frame.channels,
      data,
      ...(frame.units === undefined ? {} : { units: frame.units }),
      ...(frame.discontinuity === true ? { discontinuity: true } : {}),
      // The FIR has unit DC gain; its overshoot on full-scale steps is a few per cent, negligible
      // against an ADC full-scale range (dsp/resample.ts does not expose its exact gain bound).
      ...(frame.range === undefined ? {} : { range: frame.range }),
      ...(frame.highpass === undefined ? {} : { highpass: frame.highpass }),
      ...(frame.createdAt === undefined ? {} : { createdAt: frame.createdAt }),
    };
  }
}
