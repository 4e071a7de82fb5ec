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
 * Output `range` (core/frame.ts): the input's range × ‖h‖₁ of the design (./frame-range.ts), a
 * bound on the output's magnitude; absent when the input's is. ‖h‖₁ can take hundreds of ms for a
 * design with a pole near the unit circle, so it is summed in slices of at most SLICE_MS between
 * turns of the event loop; meanwhile the filtered frames that need it wait here, in order, and go
 * out with their range as soon as it is known. Inputs without a range never wait.
 *
 * Output `highpass` (core/frame.ts): with a `highpass` in its config (high-pass or band-pass) the
 * filter removes DC, so its frames say so: the larger of its cutoff and the input's `highpass`.
 * A low-pass or notch alone keeps the input's (a DC-free input stays DC-free).
 */
import { designFilter, type FilterSpec } from '../../dsp/design.js';
import { SosFilter } from '../../dsp/sos.js';
import type { Frame } from '../../core/frame.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../../core/node.js';
import { FatalNodeError } from '../runtime/node-errors.js';
import { SosL1Norm, scaledRange } from './frame-range.js';

/** Longest stretch of ‖h‖₁ summing per turn of the event loop, ms. */
const SLICE_MS = 5;
/** Samples summed between clock reads. */
const SLICE_SAMPLES = 4096;
/** Samples summed at once on a (re)design: most designs are done within them. */
export const FIRST_SLICE_SAMPLES = SLICE_SAMPLES * 4;

class FilterNode implements NodeInstance {
  private filter: SosFilter | undefined;
  private sampleRate = 0;
  private width = 0;
  /** ‖h‖₁ of the current design once known: the filter's gain bound for `range`. */
  private l1: number | undefined;
  /** The summing under way for the current design; undefined once done. */
  private pendingL1: SosL1Norm | undefined;
  /** Filtered frames waiting for ‖h‖₁, with their input's range. */
  private held: { frame: Frame; inputRange: number }[] = [];
  private timer: NodeJS.Immediate | undefined;

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
    // The usual case, the bound known and nothing waiting: the frame is made once, with its range.
    const ready = this.held.length === 0 && (frame.range === undefined || this.l1 !== undefined);
    const range = ready && frame.range !== undefined ? this.rangeOf(frame.range) : undefined;
    const out: Frame = {
      seq: frame.seq,
      timestamp: frame.timestamp,
      sampleRate: frame.sampleRate,
      channels: frame.channels,
      data,
      // A filter changes no unit: a channel in m/s² filtered is still in m/s².
      ...(frame.units === undefined ? {} : { units: frame.units }),
      ...(frame.discontinuity === true ? { discontinuity: true } : {}),
      ...this.highpassOf(frame),
      ...(frame.lostSamples === undefined ? {} : { lostSamples: frame.lostSamples }),
      ...(frame.annotation === undefined ? {} : { annotation: frame.annotation }),
      ...(range === undefined ? {} : { range }),
      // Latency is measured from the frame's creation at its source, across processors.
      ...(frame.createdAt === undefined ? {} : { createdAt: frame.createdAt }),
    };
    if (ready) {
      this.context.emit('out', out);
    } else if (this.l1 === undefined || this.held.length > 0) {
      // Order is kept: once one frame waits for the bound, the ones after it wait too.
      this.held.push({ frame: out, inputRange: frame.range ?? Number.NaN });
      this.sumL1();
    } else {
      this.emitWithRange(out, frame.range);
    }
  }

  stop(): Promise<void> {
    this.filter = undefined;
    this.pendingL1 = undefined;
    this.held = [];
    if (this.timer !== undefined) clearImmediate(this.timer);
    this.timer = undefined;
    return Promise.resolve();
  }

  /** The output's `highpass` field: see the file comment. */
  private highpassOf(frame: Frame): { highpass?: number } {
    const own = this.spec.highpass;
    const input = frame.highpass;
    if (own === undefined) return input === undefined ? {} : { highpass: input };
    return { highpass: input === undefined ? own : Math.max(own, input) };
  }

  private emitWithRange(frame: Frame, inputRange: number | undefined): void {
    const range = inputRange === undefined ? undefined : this.rangeOf(inputRange);
    this.context.emit('out', range === undefined ? frame : { ...frame, range });
  }

  /** The output's range for an input's (NaN: the input had none), once ‖h‖₁ is known. */
  private rangeOf(inputRange: number): number | undefined {
    return Number.isNaN(inputRange) || this.l1 === undefined ? undefined : scaledRange(inputRange, this.l1);
  }

  /** Sums ‖h‖₁ for at most SLICE_MS, then yields; releases the held frames once it is known. */
  private sumL1(): void {
    const norm = this.pendingL1;
    if (norm === undefined || this.timer !== undefined) return;
    this.timer = setImmediate(() => {
      this.timer = undefined;
      if (norm !== this.pendingL1) return; // stopped or redesigned meanwhile
      const started = performance.now();
      while (!norm.advance(SLICE_SAMPLES) && performance.now() - started < SLICE_MS) {
        // keep summing within the slice
      }
      if (!norm.done) {
        this.sumL1();
        return;
      }
      this.l1 = norm.value;
      this.pendingL1 = undefined;
      const held = this.held;
      this.held = [];
      for (const { frame, inputRange } of held) this.emitWithRange(frame, inputRange);
    });
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
    // Frames still waiting belong to the old design: finish its bound (rare: a rate change within
    // the first moments) so they leave with it, in order.
    if (this.pendingL1 !== undefined && this.held.length > 0) {
      this.pendingL1.advance(Number.POSITIVE_INFINITY);
      this.l1 = this.pendingL1.value;
      const held = this.held;
      this.held = [];
      for (const { frame, inputRange } of held) this.emitWithRange(frame, inputRange);
    }
    this.filter = new SosFilter(sos, width);
    const norm = new SosL1Norm(sos);
    // Most designs are summed at once; the rest are summed in slices (sumL1).
    if (norm.advance(FIRST_SLICE_SAMPLES)) {
      this.l1 = norm.value;
      this.pendingL1 = undefined;
    } else {
      this.l1 = undefined;
      this.pendingL1 = norm;
      if (this.held.length > 0) this.sumL1();
    }
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
