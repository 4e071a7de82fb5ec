/**
 * The `ssvep` built-in (and the maker's name for it, `ssvep_algo`): which of the candidate
 * flicker frequencies the wearer looks at, from the steady-state visual evoked potential at the
 * occipital electrodes (docs/builtins.md §ssvep).
 *
 * Windows of `window` s every `step` s (whole samples: round(window × rate), round(step × rate));
 * the first ends once `window` s of samples arrived after the start or a gap. Each window is scored
 * by dsp/ssvep-scorer.ts (CCA or FBCCA) and becomes one output row, stamped with the time of the
 * window's first sample: `score.<f>Hz` per frequency (unit 1), `frequency.top` (Hz, the best
 * score's) and `frequency.detected` (Hz, or 0 while the detection rule does not hold):
 *   a window is confident when its best score ≥ `threshold` and best − second best ≥ `margin`;
 *   a frequency is detected once `consecutive` confident windows in a row had it best, and stays
 *   detected while they go on. The window where a detection begins also carries the annotation
 *   `SSVEP <f> Hz` (written into a recording by a recorder) and the node logs it.
 * A window holding a non-finite sample scores NaN and breaks the run. A frame with
 * `discontinuity` empties the window (and clears the sub-band filters): a window never spans a gap.
 */
import type { Frame } from '../../core/frame.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../../core/node.js';
import { fbccaSubBands, SsvepScorer } from '../../dsp/ssvep-scorer.js';
import { SosFilter } from '../../dsp/sos.js';
import { FatalNodeError } from '../runtime/node-errors.js';
import { frequencyLabel, OCCIPITAL_CHANNELS, type SsvepConfig, ssvepDefaults } from './ssvep-descriptor.js';

/** The design for one input layout (rate and channels). */
interface Design {
  sampleRate: number;
  inputChannels: readonly string[];
  /** Input column of each channel used. */
  columns: number[];
  length: number;
  stepSamples: number;
  scorer: SsvepScorer;
  /** One filter per sub-band (fbcca); empty for cca. */
  filters: SosFilter[];
  weights: number[];
  /** Ring buffers: [band][channel] → the last `length` samples (cca: one band, unfiltered). */
  rings: Float64Array[][];
}

class SsvepNode implements NodeInstance {
  private design: Design | undefined;
  /** Samples received since the last reset, and where the ring writes next. */
  private received = 0;
  /** Index of the last non-finite sample (−1: none since the reset). */
  private lastBad = -1;
  /** (first sample index, timestamp) of recent frames, to stamp windows. */
  private stamps: { index: number; timestamp: number; createdAt?: number }[] = [];
  private runIndex = -1;
  private runLength = 0;
  private pendingDiscontinuity = false;
  private seq = 0;
  private readonly channelNames: string[];
  private readonly units: string[];
  private readonly range: number;

  constructor(
    private readonly context: NodeContext,
    private readonly config: SsvepConfig,
  ) {
    this.channelNames = [
      ...config.frequencies.map((f) => `score.${frequencyLabel(f)}`),
      'frequency.top',
      'frequency.detected',
    ];
    this.units = [...config.frequencies.map(() => '1'), 'Hz', 'Hz'];
    this.range = Math.max(1, ...config.frequencies);
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  onFrame(_port: string, frame: Frame): void {
    const width = frame.channels.length;
    if (width === 0 || frame.data.length === 0) return;
    let design = this.design;
    if (
      design === undefined ||
      design.sampleRate !== frame.sampleRate ||
      !sameNames(design.inputChannels, frame.channels)
    ) {
      design = this.redesign(frame);
    } else if (frame.discontinuity === true) {
      this.reset(design);
    }
    const rows = frame.data.length / width;
    const p = design.columns.length;
    const picked = new Float64Array(rows * p);
    for (let i = 0; i < rows; i++) {
      for (let c = 0; c < p; c++) {
        const value = frame.data[i * width + (design.columns[c] as number)] as number;
        if (Number.isFinite(value)) {
          picked[i * p + c] = value;
        } else {
          // Zero into the filters (a NaN would poison their state for good); the window is NaN.
          this.lastBad = this.received + i;
        }
      }
    }
    const bands =
      design.filters.length === 0
        ? [picked]
        : design.filters.map(
            (filter) => filter.process(picked, new Float64Array(picked.length)) as Float64Array,
          );
    this.stamps.push({
      index: this.received,
      timestamp: frame.timestamp,
      ...(frame.createdAt === undefined ? {} : { createdAt: frame.createdAt }),
    });
    for (let i = 0; i < rows; i++) {
      const slot = this.received % design.length;
      bands.forEach((band, b) => {
        const ring = design.rings[b] as Float64Array[];
        for (let c = 0; c < p; c++) (ring[c] as Float64Array)[slot] = band[i * p + c] as number;
      });
      this.received++;
      const start = this.received - design.length;
      if (start >= 0 && start % design.stepSamples === 0) this.emitWindow(design, start, frame.sampleRate);
    }
  }

  stop(): Promise<void> {
    this.design = undefined;
    this.stamps = [];
    return Promise.resolve();
  }

  private emitWindow(design: Design, start: number, sampleRate: number): void {
    const { length } = design;
    const first = this.received % length; // the oldest sample's slot
    let scores: Float64Array;
    if (this.lastBad >= start) {
      scores = new Float64Array(this.config.frequencies.length).fill(Number.NaN);
    } else {
      const windows = design.rings.map((ring) =>
        ring.map((column) => {
          const ordered = new Float64Array(length);
          ordered.set(column.subarray(first), 0);
          ordered.set(column.subarray(0, first), length - first);
          return ordered;
        }),
      );
      scores =
        design.filters.length === 0
          ? design.scorer.correlations(windows[0] as Float64Array[])
          : design.scorer.filterBankScores(windows, design.weights);
    }
    const { top, detectedNow, onset } = this.detect(scores);
    const frequencies = this.config.frequencies;
    const row = new Float32Array(frequencies.length + 2);
    row.set(scores);
    row[frequencies.length] = top < 0 ? Number.NaN : (frequencies[top] as number);
    row[frequencies.length + 1] = detectedNow < 0 ? 0 : (frequencies[detectedNow] as number);
    const stamp = this.stampOf(start, sampleRate);
    const annotation = onset
      ? `SSVEP ${frequencyLabel(frequencies[detectedNow] as number).replace('Hz', ' Hz')}`
      : undefined;
    if (annotation !== undefined) this.context.log(`detected ${annotation}`);
    const out: Frame = {
      seq: this.seq++,
      timestamp: stamp.timestamp,
      sampleRate: sampleRate / design.stepSamples,
      channels: this.channelNames,
      units: this.units,
      data: row,
      range: this.range,
      ...(this.pendingDiscontinuity ? { discontinuity: true } : {}),
      ...(annotation === undefined ? {} : { annotation }),
      ...(stamp.createdAt === undefined ? {} : { createdAt: stamp.createdAt }),
    };
    this.pendingDiscontinuity = false;
    this.context.emit('out', out);
  }

  /** The detection rule of the file comment, advanced by one window. */
  private detect(scores: Float64Array): { top: number; detectedNow: number; onset: boolean } {
    let top = -1;
    let second = -1;
    for (let k = 0; k < scores.length; k++) {
      const s = scores[k] as number;
      if (Number.isNaN(s)) continue;
      if (top < 0 || s > (scores[top] as number)) {
        second = top;
        top = k;
      } else if (second < 0 || s > (scores[second] as number)) {
        second = k;
      }
    }
    const best = top < 0 ? Number.NaN : (scores[top] as number);
    const runnerUp = second < 0 ? 0 : (scores[second] as number);
    const confident = best >= this.config.threshold && best - runnerUp >= this.config.margin;
    if (!confident) {
      this.runIndex = -1;
      this.runLength = 0;
    } else if (top === this.runIndex) {
      this.runLength++;
    } else {
      this.runIndex = top;
      this.runLength = 1;
    }
    const detected = this.runLength >= this.config.consecutive;
    return {
      top,
      detectedNow: detected ? this.runIndex : -1,
      onset: detected && this.runLength === this.config.consecutive,
    };
  }

  /** The timestamp (and creation time) of sample `index` from the frames that brought it. */
  private stampOf(index: number, sampleRate: number): { timestamp: number; createdAt?: number } {
    let k = 0;
    while (k + 1 < this.stamps.length && (this.stamps[k + 1]?.index ?? Number.POSITIVE_INFINITY) <= index)
      k++;
    // Frames wholly before this window are no longer needed.
    this.stamps.splice(0, k);
    const frame = this.stamps[0] ?? { index, timestamp: 0 };
    return {
      timestamp: frame.timestamp + ((index - frame.index) * 1000) / sampleRate,
      ...(frame.createdAt === undefined ? {} : { createdAt: frame.createdAt }),
    };
  }

  private reset(design: Design): void {
    this.received = 0;
    this.lastBad = -1;
    this.stamps = [];
    this.runIndex = -1;
    this.runLength = 0;
    this.pendingDiscontinuity = true;
    for (const filter of design.filters) filter.reset();
  }

  private redesign(frame: Frame): Design {
    const { config } = this;
    const sampleRate = frame.sampleRate;
    const upper = frame.channels.map((c) => c.toUpperCase());
    let columns: number[];
    if (config.channels !== undefined) {
      const missing = config.channels.filter((name) => !upper.includes(name.toUpperCase()));
      if (missing.length > 0) {
        throw new FatalNodeError(
          `channels ${missing.join(', ')} are not in the input (its channels: ${frame.channels.join(', ')})`,
        );
      }
      columns = config.channels.map((name) => upper.indexOf(name.toUpperCase()));
    } else {
      columns = upper.flatMap((name, i) => (OCCIPITAL_CHANNELS.includes(name) ? [i] : []));
      if (columns.length === 0) {
        throw new FatalNodeError(
          `the input has no occipital channel (${OCCIPITAL_CHANNELS.join(', ')}, any case) among ${frame.channels.join(', ')}; name the channels to use in the config's channels`,
        );
      }
    }
    const length = Math.round(config.window * sampleRate);
    const stepSamples = Math.max(1, Math.round(config.step * sampleRate));
    const harmonicsFit = config.frequencies.filter((f) => f >= sampleRate / 2);
    if (harmonicsFit.length > 0) {
      throw new FatalNodeError(
        `frequencies ${harmonicsFit.join(', ')} Hz are at or above the Nyquist frequency (${sampleRate / 2} Hz) of the ${sampleRate} Hz input`,
      );
    }
    if (length < 2 * config.harmonics + columns.length + 2) {
      throw new FatalNodeError(
        `a window of ${config.window} s is ${length} samples at ${sampleRate} Hz: too few for ${columns.length} channel(s) and ${config.harmonics} harmonic(s)`,
      );
    }
    const bands = config.method === 'fbcca' ? fbccaSubBands(config.subBands, sampleRate) : [];
    if (config.method === 'fbcca' && bands.length === 0) {
      throw new FatalNodeError(
        `no FBCCA sub-band fits below ${0.8 * (sampleRate / 2)} Hz at ${sampleRate} Hz`,
      );
    }
    const p = columns.length;
    const design: Design = {
      sampleRate,
      inputChannels: [...frame.channels],
      columns,
      length,
      stepSamples,
      scorer: new SsvepScorer(config.frequencies, config.harmonics, sampleRate, length),
      filters: bands.map((band) => new SosFilter(band.sos, p)),
      weights: bands.map((band) => band.weight),
      rings: Array.from({ length: Math.max(1, bands.length) }, () =>
        Array.from({ length: p }, () => new Float64Array(length)),
      ),
    };
    const first = this.design === undefined;
    this.design = design;
    this.reset(design);
    if (first) this.pendingDiscontinuity = frame.discontinuity === true;
    this.context.log(
      `${first ? 'designed' : 'redesigned'} for ${sampleRate} Hz: ${config.method} on ${columns.map((c) => frame.channels[c]).join(', ')}, windows of ${length} samples every ${stepSamples}${bands.length > 0 ? `, sub-bands ${bands.map((b) => `${b.low}-${b.high}`).join(', ')} Hz` : ''}`,
    );
    return design;
  }
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

export const createSsvep: NodeFactory = (context) => new SsvepNode(context, ssvepDefaults(context.config));
