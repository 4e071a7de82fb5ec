/**
 * The `reference` built-in: re-references each frame (average, one channel, or the mean of a set)
 * and keeps or drops channels (dsp/reference.ts; MNE's `set_eeg_reference` then `pick`). Names
 * in the config match the frames' channels in any case; the output names them as the frames do.
 *
 * The plan (which columns) is made on the first frame and again whenever a frame's channels
 * differ. A configured name the frames do not have puts the node in `error` naming it, as the
 * stream's creation does when the channels are known before it runs (streams/channels.ts): a
 * restart would not bring the channel.
 *
 * Output `range`: |x − mean(refs)| ≤ 2 × the input's range (the input's when nothing is
 * subtracted). `highpass`, `lostSamples`, `annotation`, `discontinuity` pass through: the
 * samples keep their times and a difference of DC-free signals is DC-free.
 */
import type { Frame } from '../../core/frame.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../../core/node.js';
import { applyReference, type ReferenceSpec, referencePlan } from '../../dsp/reference.js';
import { FatalNodeError } from '../runtime/node-errors.js';

class ReferenceNode implements NodeInstance {
  private channels: readonly string[] | undefined;
  private plan: { referenceColumns: readonly number[]; outputColumns: readonly number[] } | undefined;
  private outputNames: readonly string[] = [];
  private outputUnits: readonly string[] | undefined;

  constructor(
    private readonly context: NodeContext,
    private readonly spec: ReferenceSpec,
  ) {}

  start(): Promise<void> {
    return Promise.resolve();
  }

  onFrame(_port: string, frame: Frame): void {
    if (frame.channels !== this.channels) this.replan(frame);
    const plan = this.plan;
    if (plan === undefined) return;
    const data = applyReference(plan, frame.data, frame.channels.length);
    const subtracts = plan.referenceColumns.length > 0;
    this.context.emit('out', {
      seq: frame.seq,
      timestamp: frame.timestamp,
      sampleRate: frame.sampleRate,
      channels: this.outputNames,
      data,
      ...(this.outputUnits === undefined ? {} : { units: this.outputUnits }),
      ...(frame.discontinuity === true ? { discontinuity: true } : {}),
      ...(frame.range === undefined ? {} : { range: subtracts ? 2 * frame.range : frame.range }),
      ...(frame.highpass === undefined ? {} : { highpass: frame.highpass }),
      ...(frame.lostSamples === undefined ? {} : { lostSamples: frame.lostSamples }),
      ...(frame.annotation === undefined ? {} : { annotation: frame.annotation }),
      ...(frame.createdAt === undefined ? {} : { createdAt: frame.createdAt }),
    });
  }

  stop(): Promise<void> {
    this.plan = undefined;
    this.channels = undefined;
    return Promise.resolve();
  }

  private replan(frame: Frame): void {
    const same =
      this.channels !== undefined &&
      this.channels.length === frame.channels.length &&
      this.channels.every((name, i) => name === frame.channels[i]);
    if (same && this.plan !== undefined) {
      this.channels = frame.channels;
      return;
    }
    const plan = referencePlan(this.spec, frame.channels);
    if (!plan.ok) {
      this.plan = undefined;
      this.channels = undefined;
      throw new FatalNodeError(`config${plan.path}: ${plan.message}`);
    }
    this.channels = frame.channels;
    this.plan = plan;
    this.outputNames = plan.outputNames;
    this.outputUnits =
      frame.units === undefined ? undefined : plan.outputColumns.map((c) => frame.units?.[c] ?? 'µV');
    this.context.log(
      `${frame.channels.length} channel(s) in, ${plan.outputNames.length} out; reference: ${
        plan.referenceColumns.length === 0
          ? 'none'
          : plan.referenceColumns.map((c) => frame.channels[c]).join(', ')
      }`,
    );
  }
}

export const createReference: NodeFactory = (context) => {
  const { reference, pick, drop } = context.config as ReferenceSpec;
  return new ReferenceNode(context, {
    ...(reference === undefined ? {} : { reference }),
    ...(pick === undefined ? {} : { pick }),
    ...(drop === undefined ? {} : { drop }),
  });
};
