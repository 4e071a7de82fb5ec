/**
 * Converts a multichannel frame stream from one sample rate to another (eeg-source, when the
 * device already acquires at another rate than the node asks for). The method is dsp/resample.ts's
 * streaming rational resampler (L/M polyphase, Kaiser-windowed sinc, ≥ 80 dB stop band from the
 * lower Nyquist frequency, pass band flat to 0.8 × it, linear phase): see that file. Its group
 * delay is a whole number of output samples; output timestamps are shifted back by it, so they
 * give the time each output sample represents. Sample counts never drift across frames.
 *
 * With `trimStartUp` (the `resample` node) the first delaySamples outputs after each reset, the
 * filter's start-up, which stand for instants before the first input sample, are not emitted: the
 * output is then `scipy.signal.resample_poly` of the input since the reset, sample for sample, its
 * sample k stamped with the first input's time + k / outRate (the instant k·M/L input samples on).
 */
import { Resampler, type ResamplerDesign } from './resample.js';
import type { Frame } from '../core/frame.js';

export class RateConverter {
  private readonly resampler: Resampler;
  /** Wall time of the first input sample since the last reset, ms; undefined before it. */
  private origin: number | undefined;
  private produced = 0;
  private readonly trimStartUp: boolean;
  /** A gap began a block that yielded nothing yet: the next frame out carries `discontinuity`. */
  private gapPending = false;

  constructor(
    readonly inRate: number,
    readonly outRate: number,
    readonly channels: number,
    options: { design?: ResamplerDesign; ratio?: { up: number; down: number }; trimStartUp?: boolean } = {},
  ) {
    this.resampler = new Resampler(inRate, outRate, channels, options);
    this.trimStartUp = options.trimStartUp === true;
  }

  /** Largest output magnitude per unit of input magnitude (dsp/resample.ts `gainBound`). */
  get gainBound(): number {
    return this.resampler.gainBound;
  }

  /** Group delay of the filter, output samples. */
  get delaySamples(): number {
    return this.resampler.delaySamples;
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
    if (frame.discontinuity === true) {
      this.reset();
      this.gapPending = true;
    }
    this.origin ??= frame.timestamp;
    let data = this.resampler.process(frame.data);
    const delay = this.resampler.delaySamples;
    const startUp = this.trimStartUp
      ? Math.max(0, Math.min(delay - this.produced, data.length / this.channels))
      : 0;
    this.produced += data.length / this.channels;
    if (startUp > 0) data = data.slice(startUp * this.channels);
    if (data.length === 0) return undefined;
    const index = this.produced - data.length / this.channels - delay;
    const gap = this.gapPending;
    this.gapPending = false;
    return {
      seq: frame.seq,
      timestamp: this.origin + (index * 1000) / this.outRate,
      sampleRate: this.outRate,
      channels: frame.channels,
      data,
      ...(frame.units === undefined ? {} : { units: frame.units }),
      ...(gap ? { discontinuity: true } : {}),
      // The FIR has unit DC gain; its overshoot on full-scale steps is a few per cent, negligible
      // against an ADC full-scale range (dsp/resample.ts does not expose its exact gain bound).
      ...(frame.range === undefined ? {} : { range: frame.range }),
      ...(frame.highpass === undefined ? {} : { highpass: frame.highpass }),
      ...(frame.createdAt === undefined ? {} : { createdAt: frame.createdAt }),
    };
  }
}
