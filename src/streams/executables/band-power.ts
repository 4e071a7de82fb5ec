/**
 * The `band-power` built-in: per channel, the power in named frequency bands over a sliding window,
 * from Welch's PSD (dsp/welch.ts, scipy.signal.welch's method) integrated by the trapezoid rule
 * over the bins within each band, edges included (docs/builtins.md §band-power gives the formulas).
 *
 * Windows: after a (re)start the first value comes once `window` seconds of samples have arrived,
 * then one every `step` seconds, each over the last `window` seconds (kept per channel in a ring,
 * so a window may span any number of input frames). Each value is one output frame of one row, at
 * the rate 1/step, stamped with the time of the window's last sample, channels `<channel>.<band>`
 * (channel after channel, bands in config order) with `units` (µV², 1 or dB).
 *
 * The design depends on the input rate, which only the frames tell: it is made on the first frame
 * and again whenever the rate or the channels change. Such a change and a frame with
 * `discontinuity` empty the window (samples on either side of a gap are not one signal): the next
 * value comes a whole window later and its frame has `discontinuity`. A config impossible at the
 * rate (a band above Nyquist) puts the node in `error` with the message streams/rates.ts would have
 * given, had the rate been known when the stream was made.
 */
import type { Frame } from '../../core/frame.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../../core/node.js';
import { trapezoid, WelchPlan } from '../../dsp/welch.js';
import { FatalNodeError } from '../runtime/node-errors.js';
import { type BandPowerConfig, type BandPowerDesign, bandPowerDesign } from './band-power-design.js';

interface Running {
  design: BandPowerDesign;
  plan: WelchPlan;
  width: number;
  inputChannels: readonly string[];
  channels: readonly string[];
  units: readonly string[];
  /** Planar ring of the last windowSamples samples per channel: `ring[c·N + i]`. */
  ring: Float64Array;
  /** Where the next sample goes in each channel's ring. */
  head: number;
  /** Samples until the next value. */
  untilNext: number;
  block: Float64Array;
  psd: Float64Array;
}

class BandPowerNode implements NodeInstance {
  private running: Running | undefined;
  private seq = 0;
  /** A gap or a change emptied the window: the next frame out carries `discontinuity`. */
  private gapPending = false;

  constructor(
    private readonly context: NodeContext,
    private readonly config: BandPowerConfig,
  ) {}

  start(): Promise<void> {
    return Promise.resolve();
  }

  onFrame(_port: string, frame: Frame): void {
    const width = frame.channels.length;
    if (width === 0 || frame.data.length === 0) return;
    let running = this.running;
    if (
      running === undefined ||
      frame.sampleRate !== running.design.sampleRate ||
      !sameChannels(running.inputChannels, frame.channels)
    ) {
      if (running !== undefined) this.gapPending = true;
      running = this.redesign(frame);
    } else if (frame.discontinuity === true) {
      this.restart(running);
      this.gapPending = true;
    }
    const n = running.design.windowSamples;
    const rows = frame.data.length / width;
    const ring = running.ring;
    const data = frame.data;
    for (let i = 0; i < rows; i++) {
      const head = running.head;
      for (let c = 0; c < width; c++) ring[c * n + head] = data[i * width + c] as number;
      running.head = head + 1 === n ? 0 : head + 1;
      running.untilNext--;
      if (running.untilNext === 0) {
        running.untilNext = running.design.stepSamples;
        this.emitValue(running, frame, frame.timestamp + (i * 1000) / frame.sampleRate);
      }
    }
  }

  stop(): Promise<void> {
    this.running = undefined;
    return Promise.resolve();
  }

  /** The bands of the window that ends at `timestamp`, as one frame. */
  private emitValue(running: Running, input: Frame, timestamp: number): void {
    const { design, plan, block, psd, ring, width } = running;
    const n = design.windowSamples;
    const bands = design.bands;
    const out = new Float32Array(width * bands.length);
    const frequencies = plan.frequencies;
    for (let c = 0; c < width; c++) {
      // Oldest sample first: the ring from its head on, then from its start.
      const row = c * n;
      block.set(ring.subarray(row + running.head, row + n), 0);
      block.set(ring.subarray(row, row + running.head), n - running.head);
      plan.psd(block, n, psd);
      const total =
        design.total === undefined ? 1 : trapezoid(psd, frequencies, design.total.first, design.total.count);
      for (let b = 0; b < bands.length; b++) {
        const band = bands[b] as (typeof bands)[number];
        const value = trapezoid(psd, frequencies, band.first, band.count) / total;
        out[c * bands.length + b] = design.db ? 10 * Math.log10(value) : value;
      }
    }
    const gap = this.gapPending;
    this.gapPending = false;
    this.context.emit('out', {
      seq: this.seq++,
      timestamp,
      sampleRate: design.sampleRate / design.stepSamples,
      channels: running.channels,
      units: running.units,
      data: out,
      ...(gap ? { discontinuity: true } : {}),
      // Latency is measured from the creation of the frame that completed the window.
      ...(input.createdAt === undefined ? {} : { createdAt: input.createdAt }),
    });
  }

  private restart(running: Running): void {
    running.ring.fill(0);
    running.head = 0;
    running.untilNext = running.design.windowSamples;
  }

  private redesign(frame: Frame): Running {
    const { design, issues } = bandPowerDesign(this.config, frame.sampleRate);
    if (design === undefined) {
      throw new FatalNodeError(issues.map((i) => `config${i.path}: ${i.message}`).join('; '));
    }
    const width = frame.channels.length;
    const plan = new WelchPlan({
      sampleRate: frame.sampleRate,
      nperseg: design.nperseg,
      noverlap: design.noverlap,
      window: design.windowFunction,
      detrend: design.detrend,
    });
    const channels = frame.channels.flatMap((ch) => design.bands.map((b) => `${ch}.${b.name}`));
    const first = this.running === undefined;
    this.running = {
      design,
      plan,
      width,
      inputChannels: [...frame.channels],
      channels,
      units: channels.map(() => design.unit),
      ring: new Float64Array(width * design.windowSamples),
      head: 0,
      untilNext: design.windowSamples,
      block: new Float64Array(design.windowSamples),
      psd: new Float64Array(plan.bins),
    };
    this.context.log(
      `${first ? 'designed' : 'redesigned'} for ${frame.sampleRate} Hz, ${width} channel(s): window ${design.windowSamples}, step ${design.stepSamples}, segment ${design.nperseg} (overlap ${design.noverlap}) samples`,
    );
    return this.running;
  }
}

function sameChannels(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((name, i) => name === b[i]));
}

export const createBandPower: NodeFactory = (context) => new BandPowerNode(context, context.config);
