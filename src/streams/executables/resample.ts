/**
 * The `resample` built-in: any rational change of sample rate, as `scipy.signal.resample_poly`
 * computes it (dsp/resample.ts's polyphase FIR with scipy's design, through dsp/rate-converter.ts,
 * the mechanism eeg-source resamples with).
 *
 * The ratio comes from the config's `sampleRate` (the output rate; with the input's, reduced to
 * up/down) or its `up` and `down`; the filter is designed on the first frame and again when the
 * input rate or channels change. After a (re)start the filter's start-up is not emitted: output
 * sample k after it is resample_poly's sample k of the input since, stamped with the time of the
 * input instant it stands for (the first input sample's time + k / output rate). A gap
 * (`discontinuity`), a rate or channel change restarts it; the next frame out has `discontinuity`.
 * An input `range` goes out multiplied by the filter's gain bound (its largest branch's Σ|h|, 1.8
 * for 250 → 100 Hz), so that a recorder after it never clips what the filter can make of it.
 */
import type { Frame } from '../../core/frame.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../../core/node.js';
import { RateConverter } from '../../dsp/rate-converter.js';
import { reducedRatio } from '../../dsp/resample.js';
import { FatalNodeError } from '../runtime/node-errors.js';
import { type ResampleConfig, resampleRatio } from './spectral-descriptors.js';

class ResampleNode implements NodeInstance {
  private converter: RateConverter | undefined;
  private inputChannels: readonly string[] = [];
  private seq = 0;
  /** The current filter's gain bound (Σ|h| of its largest branch), for `range`. */
  private gain = 1;

  constructor(
    private readonly context: NodeContext,
    private readonly config: ResampleConfig,
  ) {}

  start(): Promise<void> {
    return Promise.resolve();
  }

  onFrame(_port: string, frame: Frame): void {
    const width = frame.channels.length;
    if (width === 0 || frame.data.length === 0) return;
    let converter = this.converter;
    let input = frame;
    if (
      converter === undefined ||
      converter.inRate !== frame.sampleRate ||
      frame.channels.length !== this.inputChannels.length ||
      frame.channels.some((name, i) => name !== this.inputChannels[i])
    ) {
      // A new design starts a new signal: the first frame out of it says so.
      if (converter !== undefined && frame.discontinuity !== true) input = { ...frame, discontinuity: true };
      converter = this.redesign(frame);
    }
    const out = converter.process(input);
    if (out === undefined) return;
    this.context.emit('out', {
      ...out,
      seq: this.seq++,
      ...(frame.units === undefined ? {} : { units: frame.units }),
      // What the FIR can make of inputs within the range: the output's bound is the input's × Σ|h|.
      ...(frame.range === undefined ? {} : { range: frame.range * this.gain }),
    });
  }

  stop(): Promise<void> {
    this.converter = undefined;
    return Promise.resolve();
  }

  private redesign(frame: Frame): RateConverter {
    const { ratio, issues } = resampleRatio(this.config, frame.sampleRate);
    if (ratio === undefined)
      throw new FatalNodeError(issues.map((i) => `config${i.path}: ${i.message}`).join('; '));
    const { up, down } = reducedRatio(ratio.up, ratio.down);
    const outRate = (frame.sampleRate * up) / down;
    const first = this.converter === undefined;
    this.converter = new RateConverter(frame.sampleRate, outRate, frame.channels.length, {
      design: 'resample_poly',
      ratio: { up, down },
      trimStartUp: true,
    });
    this.inputChannels = [...frame.channels];
    this.gain = this.converter.gainBound;
    this.context.log(
      `${first ? 'designed' : 'redesigned'} for ${frame.sampleRate} Hz → ${outRate} Hz (up ${up}, down ${down}), ${frame.channels.length} channel(s): group delay ${this.converter.delaySamples} output samples`,
    );
    return this.converter;
  }
}

export const createResample: NodeFactory = (context) => new ResampleNode(context, context.config);
