/**
 * The `epoch` built-in: for each marker, the window of samples from tmin to tmax around the
 * marker's sample, baseline-corrected and kept unless a channel's peak-to-peak exceeds `reject`,
 * emitted as one frame (dsp/epoch.ts; MNE's `mne.Epochs`).
 *
 * Markers come as signals, the one way markers reach nodes: `marker` {text} (at its arrival) and
 * `annotate` {text, onset (ms since the epoch, on the frames' time line), duration}, sent by a
 * client (POST .../nodes/{id}/signal) or by the service for each marker of the replayed recording
 * (replay-markers.ts). A marker and the frames holding its samples may arrive in either order: a
 * marker waits for the frame holding its time, the samples are kept for a while (the window before
 * the marker plus LATE_MARKER_SECONDS) for markers that come after their samples, and an epoch
 * leaves as soon as its last sample arrives.
 *
 * The marker's sample is found in the frame holding its time: row round((time − frame's timestamp)
 * × rate / 1000). Samples across a `discontinuity` (or a change of rate or channels) are not one
 * signal: an epoch never spans one, and an epoch not complete when one comes is dropped (counted
 * as incomplete), as MNE drops an epoch that runs out of the data.
 *
 * Output: one frame per kept epoch: `timestamp` the time of its first sample, `marker` {text,
 * timestamp of the marker's sample}, `discontinuity: true` (epochs are not one signal either; they
 * may overlap), `seq` counting epochs. Status info `epochs`: markers seen, epochs emitted,
 * rejected and incomplete.
 */
import type { Frame } from '../../core/frame.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../../core/node.js';
import { baselineRows, correctEpoch, epochOffsets } from '../../dsp/epoch.js';
import { HeadsetdError } from '../../core/errors.js';
import type { EpochConfig } from './erp-descriptors.js';
import { wallNowMs } from '../../core/wall-clock.js';

/** How long samples are kept for a marker that arrives after them, s. */
export const LATE_MARKER_SECONDS = 10;
/** Markers waiting for their samples, at most; the oldest beyond it is dropped. */
const MAX_WAITING_MARKERS = 10_000;

interface Chunk {
  /** Index of its first row in the segment's samples. */
  index: number;
  timestamp: number;
  rows: number;
  data: Float32Array;
}

interface Waiting {
  text: string;
  time: number;
}

interface Pending {
  text: string;
  /** The marker's sample (segment index) and its time. */
  sample: number;
  time: number;
}

function single(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

class EpochNode implements NodeInstance {
  private rate = 0;
  private channels: readonly string[] = [];
  private units: readonly string[] | undefined;
  private chunks: Chunk[] = [];
  /** Rows received in the current segment. */
  private received = 0;
  private first = 0;
  private last = 0;
  private waiting: Waiting[] = [];
  private pending: Pending[] = [];
  private seq = 0;
  private range: number | undefined;
  private highpass: number | undefined;
  private readonly counts = { markers: 0, emitted: 0, rejected: 0, incomplete: 0 };
  private readonly selected: ReadonlySet<string> | undefined;

  constructor(
    private readonly context: NodeContext,
    private readonly config: EpochConfig,
  ) {
    this.selected = config.markers === undefined ? undefined : new Set(config.markers);
  }

  start(): Promise<void> {
    this.report();
    return Promise.resolve();
  }

  onFrame(_port: string, frame: Frame): void {
    const width = frame.channels.length;
    const rows = width === 0 ? 0 : frame.data.length / width;
    if (rows === 0) return;
    if (
      frame.discontinuity === true ||
      frame.sampleRate !== this.rate ||
      !sameNames(frame.channels, this.channels)
    ) {
      this.newSegment(frame);
    }
    this.range = frame.range;
    this.highpass = frame.highpass;
    this.chunks.push({ index: this.received, timestamp: frame.timestamp, rows, data: frame.data });
    this.received += rows;
    this.resolve();
    this.emitReady();
    this.trim();
  }

  signal(name: string, payload: Readonly<Record<string, unknown>>): void {
    if (name !== 'marker' && name !== 'annotate') {
      throw new HeadsetdError(
        'invalid_request',
        `the epoch node takes the signals marker and annotate, not '${name}'.`,
      );
    }
    const arrival = wallNowMs();
    const text = single(payload.text);
    if (typeof text !== 'string' || text.trim() === '') {
      throw new HeadsetdError('validation_failed', `signal ${name} needs a non-empty 'text'.`);
    }
    let time = arrival;
    if (name === 'annotate') {
      const raw = single(payload.onset);
      if (raw !== undefined) {
        const onset =
          typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
        if (!Number.isFinite(onset)) {
          throw new HeadsetdError(
            'validation_failed',
            "annotate: 'onset' (ms since the epoch) must be a number.",
          );
        }
        time = onset;
      }
    }
    if (this.selected !== undefined && !this.selected.has(text)) return;
    this.counts.markers++;
    this.waiting.push({ text, time });
    if (this.waiting.length > MAX_WAITING_MARKERS) {
      const dropped = this.waiting.shift();
      this.context.log(
        `marker "${dropped?.text}" dropped: ${MAX_WAITING_MARKERS} markers wait for their samples`,
      );
      this.counts.incomplete++;
    }
    this.resolve();
    this.emitReady();
    this.report();
  }

  stop(): Promise<void> {
    this.chunks = [];
    this.pending = [];
    this.waiting = [];
    return Promise.resolve();
  }

  private newSegment(frame: Frame): void {
    for (const epoch of this.pending)
      this.dropIncomplete(epoch, 'the samples were interrupted (discontinuity)');
    this.pending = [];
    this.chunks = [];
    this.received = 0;
    if (frame.sampleRate !== this.rate) {
      this.rate = frame.sampleRate;
      const { first, last } = epochOffsets(this.config.tmin, this.config.tmax, this.rate);
      this.first = first;
      this.last = last;
      this.context.log(
        `at ${this.rate} Hz: samples ${first} to ${last} around each marker (${last - first + 1} per epoch)`,
      );
    }
    this.channels = frame.channels;
    this.units = frame.units;
  }

  /** Places each waiting marker whose time the received frames cover; drops those before them. */
  private resolve(): void {
    if (this.chunks.length === 0) return;
    const period = 1000 / this.rate;
    const start = this.chunks[0] as Chunk;
    const end = this.chunks[this.chunks.length - 1] as Chunk;
    const endTime = end.timestamp + (end.rows - 0.5) * period;
    const still: Waiting[] = [];
    for (const marker of this.waiting) {
      if (marker.time >= endTime) {
        still.push(marker);
        continue;
      }
      if (marker.time < start.timestamp - period / 2) {
        this.dropMarker(
          marker.text,
          marker.time,
          'its samples are no longer held (it came too late or before a gap)',
        );
        continue;
      }
      let chunk = start;
      for (const c of this.chunks) {
        if (c.timestamp <= marker.time + period / 2) chunk = c;
        else break;
      }
      const row = Math.round((marker.time - chunk.timestamp) / period);
      const sample = chunk.index + row;
      const epochStart = sample + this.first;
      if (epochStart < start.index) {
        this.dropMarker(
          marker.text,
          marker.time,
          'its window starts before the samples held (after a gap or start)',
        );
        continue;
      }
      this.pending.push({ text: marker.text, sample, time: chunk.timestamp + row * period });
    }
    this.waiting = still;
  }

  private emitReady(): void {
    const still: Pending[] = [];
    for (const epoch of this.pending) {
      if (epoch.sample + this.last < this.received) this.cut(epoch);
      else still.push(epoch);
    }
    if (still.length !== this.pending.length) this.report();
    this.pending = still;
  }

  private cut(epoch: Pending): void {
    const width = this.channels.length;
    const rows = this.last - this.first + 1;
    const from = epoch.sample + this.first;
    const samples = new Float32Array(rows * width);
    for (const chunk of this.chunks) {
      const lo = Math.max(from, chunk.index);
      const hi = Math.min(from + rows, chunk.index + chunk.rows);
      if (hi <= lo) continue;
      samples.set(
        chunk.data.subarray((lo - chunk.index) * width, (hi - chunk.index) * width),
        (lo - from) * width,
      );
    }
    const { baseline, reject } = this.config;
    const rowsOfBaseline =
      baseline === undefined || baseline === null
        ? undefined
        : baselineRows(this.first, rows, this.rate, baseline);
    const { data, rejectedBy } = correctEpoch(samples, width, rowsOfBaseline, reject);
    if (rejectedBy.length > 0) {
      this.counts.rejected++;
      this.context.log(
        `epoch at "${epoch.text}" (${new Date(epoch.time).toISOString()}) rejected: peak-to-peak above ${reject} µV on ${rejectedBy
          .map((c) => this.channels[c])
          .join(', ')}`,
      );
      return;
    }
    this.counts.emitted++;
    const range =
      this.range === undefined ? undefined : rowsOfBaseline === undefined ? this.range : 2 * this.range;
    this.context.emit('out', {
      seq: this.seq++,
      timestamp: epoch.time + (this.first * 1000) / this.rate,
      sampleRate: this.rate,
      channels: this.channels,
      data,
      discontinuity: true,
      marker: { text: epoch.text, timestamp: epoch.time },
      ...(this.units === undefined ? {} : { units: this.units }),
      ...(range === undefined ? {} : { range }),
      ...(this.highpass === undefined ? {} : { highpass: this.highpass }),
    });
  }

  /** Forgets the samples no epoch to come can need. */
  private trim(): void {
    const keepRows = Math.max(0, -this.first) + Math.ceil(LATE_MARKER_SECONDS * this.rate);
    let oldest = this.received - keepRows;
    for (const epoch of this.pending) oldest = Math.min(oldest, epoch.sample + this.first);
    while (this.chunks.length > 1) {
      const chunk = this.chunks[0] as Chunk;
      if (chunk.index + chunk.rows > oldest) break;
      this.chunks.shift();
    }
  }

  private dropIncomplete(epoch: Pending, why: string): void {
    this.dropMarker(epoch.text, epoch.time, why);
  }

  private dropMarker(text: string, time: number, why: string): void {
    this.counts.incomplete++;
    this.context.log(`no epoch at "${text}" (${new Date(time).toISOString()}): ${why}`);
    this.report();
  }

  private report(): void {
    this.context.setInfo({ epochs: { ...this.counts } });
  }
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((name, i) => name === b[i]));
}

export const createEpoch: NodeFactory = (context) =>
  new EpochNode(context, context.config as unknown as EpochConfig);
