/**
 * The `filter` built-in: causal Butterworth high/low/band-pass plus optional notch, in second-order
 * sections with state per channel (dsp/design.ts, dsp/sos.ts; scipy's `butter(..., output='sos')` +
 * `sosfilt`).
 *
 * The design depends on the sample rate, which only the frames tell: the filter is designed on the
 * first frame and redesigned (state cleared) whenever a frame's rate or channel count differs. A
 * frame with `discontinuity: true` clears the state: samples on either side of a gap are not one
 * signal. A design impossible at the incoming rate (a lowpass above Nyquist) puts the node in
 * `error` with the design's message; a restart would not cure it.
 *
 * Output `range` (runtime/frame.ts): the input's range × ‖h‖₁ of the design (./frame-range.ts), a
 * bound on the output's magnitude; absent when the input's is.
 */
import { designFilter, type FilterSpec } from '../dsp/design.js';
import { SosFilter } from '../dsp/sos.js';
import type { Frame } from '../runtime/frame.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../runtime/node.js';
import { FatalNodeError } from '../runtime/node-errors.js';
import { scaledRange, sosL1Norm } from './frame-range.js';

class FilterNode implements NodeInstance {
  private filter: SosFilter | undefined;
  private sampleRate = 0;
  private width = 0;
  /** ‖h‖₁ of the current design: the filter's gain bound for `range`. */
  private l1 = 1;

  constructor(
    private readonly context: NodeContext,
    private readonly spec: FilterSpec,
  ) {}

  start(): Promise<void> {
    return Promise.resolve();
  }

  onFrame(_port: string, frame: Frame): void {
    const width = frame.channels.length;
    if (width === 0 || frame.data.length === 0) {
      this.context.emit('out', frame);
      return;
    }
    if (this.filter === undefined || frame.sampleRate !== this.sampleRate || width !== this.width) {
      this.redesign(frame.sampleRate, width);
    } else if (frame.discontinuity === true) {
      this.filter.reset();
    }
    const filter = this.filter;
    if (filter === undefined) return;
    const data = new Float32Array(frame.data.length);
    filter.process(frame.data, data);
    const range = scaledRange(frame.range, this.l1);
    this.context.emit('out', {
      seq: frame.seq,
      timestamp: frame.timestamp,
      sampleRate: frame.sampleRate,
      channels: frame.channels,
      data,
      ...(frame.discontinuity === true ? { discontinuity: true } : {}),
      ...(range === undefined ? {} : { range }),
      // Latency is measured from the frame's creation at its source, across processors.
      ...(frame.createdAt === undefined ? {} : { createdAt: frame.createdAt }),
    });
  }

  stop(): Promise<void> {
    this.filter = undefined;
    return Promise.resolve();
  }

  private redesign(sampleRate: number, width: number): void {
    let sos;
    try {
      sos = designFilter(this.spec, sampleRate);
    } catch (error) {
      if (error instanceof RangeError) throw new FatalNodeError(error.message);
      throw error;
    }
    const first = this.filter === undefined;
    this.filter = new SosFilter(sos, width);
    this.l1 = sosL1Norm(sos);
    this.sampleRate = sampleRate;
    this.width = width;
    this.context.log(
      `${first ? 'designed' : 'redesigned'} for ${sampleRate} Hz, ${width} channel(s): ${sos.length / 6} section(s)`,
    );
  }
}

export const createFilter: NodeFactory = (context) => {
  const { highpass, lowpass, order, notch, notchQ } = context.config as FilterSpec;
  const spec: FilterSpec = {
    ...(highpass === undefined ? {} : { highpass }),
    ...(lowpass === undefined ? {} : { lowpass }),
    ...(order === undefined ? {} : { order }),
    ...(notch === undefined ? {} : { notch }),
    ...(notchQ === undefined ? {} : { notchQ }),
  };
  return new FilterNode(context, spec);
};
