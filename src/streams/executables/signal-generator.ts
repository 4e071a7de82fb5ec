/**
 * The `signal-generator` built-in (docs/api.md §Built-in executables): every channel carries the
 * sum of the configured sines, plus white Gaussian noise of RMS `noise` (independent per channel,
 * repeatable with `seed`). The noise is clamped at ±6σ (NOISE_CLAMP_SIGMA; a deviate beyond it has
 * probability 2·10⁻⁹), so every frame's `range` (Σ|amplitudes| + 6·noise) truly bounds its samples.
 *
 * Pacing: sample k of the current run is due at `epoch + k / sampleRate` on the monotonic clock
 * (performance.now()). Each wake-up emits every sample due so far, so timer lateness never
 * accumulates: the sample count follows the clock exactly over any interval. Frames hold about
 * {@link FRAME_DURATION_MS} of samples (at least one). A backlog longer than {@link MAX_BACKLOG_MS}
 * (the thread was stalled) is skipped rather than flooded downstream, and the next frame says
 * `discontinuity: true`. Pause stops the timer; resume starts a new epoch (the runtime marks the gap).
 * The wake-up is a precise timer (core/precise-timer.ts): a frame leaves within about 0.1 ms of
 * its last sample's due time, not up to a millisecond later as with a plain `setTimeout`.
 */
import type { Frame } from '../../core/frame.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../../core/node.js';
import { type PreciseTimer, preciseTimeout } from '../../core/precise-timer.js';
import { sampleInstant, samplesDue } from '../../core/sample-clock.js';
import { generatorRange, NOISE_CLAMP_SIGMA } from './frame-range.js';
import { wallAtMs } from '../../core/wall-clock.js';

export const FRAME_DURATION_MS = 10;
export const MAX_BACKLOG_MS = 1000;

export interface SignalGeneratorConfig {
  sampleRate: number;
  amplitudes: number[];
  frequencies: number[];
  channels?: number;
  noise?: number;
  channelNames?: string[];
  seed?: number;
}

/** mulberry32: a small, fast, seedable PRNG; uniform in [0, 1). */
function uniform(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal deviates (Box–Muller), clamped at ±NOISE_CLAMP_SIGMA. */
function gaussian(seed: number): () => number {
  const next = uniform(seed);
  return () => {
    const u = 1 - next(); // (0, 1]: log(0) is never taken
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
    return Math.min(NOISE_CLAMP_SIGMA, Math.max(-NOISE_CLAMP_SIGMA, z));
  };
}

class SignalGenerator implements NodeInstance {
  private readonly rate: number;
  private readonly width: number;
  private readonly channels: readonly string[];
  private readonly frameSamples: number;
  private readonly maxBacklog: number;
  private readonly normal: (() => number) | undefined;
  private readonly noise: number;
  /** Bound on |sample| (Frame.range). */
  private readonly range: number;
  /** Sample index since the node started: the sines' phase (continues across pause). */
  private sampleIndex = 0;
  private epochMonotonic = 0;
  private epochWall = 0;
  private emittedInEpoch = 0;
  private timer: PreciseTimer | undefined;
  private running = false;
  private skipped = false;

  constructor(
    private readonly context: NodeContext,
    private readonly config: SignalGeneratorConfig,
  ) {
    this.rate = config.sampleRate;
    this.width = config.channels ?? 1;
    this.channels = Object.freeze(
      config.channelNames !== undefined && config.channelNames.length === this.width
        ? [...config.channelNames]
        : Array.from({ length: this.width }, (_, i) => `ch${i + 1}`),
    );
    this.frameSamples = Math.max(1, Math.round((this.rate * FRAME_DURATION_MS) / 1000));
    this.maxBacklog = Math.max(this.frameSamples, Math.round((this.rate * MAX_BACKLOG_MS) / 1000));
    this.noise = config.noise ?? 0;
    this.range = generatorRange(config.amplitudes, this.noise);
    this.normal = this.noise > 0 ? gaussian(config.seed ?? Math.floor(Math.random() * 2 ** 32)) : undefined;
  }

  start(): Promise<void> {
    this.running = true;
    this.newEpoch();
    this.schedule();
    return Promise.resolve();
  }

  pause(): void {
    this.running = false;
    this.clearTimer();
  }

  resume(): void {
    if (this.running) return;
    this.running = true;
    this.newEpoch();
    this.schedule();
  }

  stop(): Promise<void> {
    this.running = false;
    this.clearTimer();
    return Promise.resolve();
  }

  private newEpoch(): void {
    this.epochMonotonic = performance.now();
    // The wall-clock time of that same reading, on the service's one wall clock (fractional ms;
    // Date.now() is truncated to whole ms, which would put every timestamp up to 1 ms early). A
    // second reading was 0.13 ms later when it was the thread's first: every frame stamped late.
    this.epochWall = wallAtMs(this.epochMonotonic);
    this.emittedInEpoch = 0;
  }

  private clearTimer(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Wakes when the next full frame is due: at the time of its last sample. */
  private schedule(): void {
    if (!this.running) return;
    const dueAt = sampleInstant(this.epochMonotonic, this.emittedInEpoch + this.frameSamples - 1, this.rate);
    this.timer = preciseTimeout(this.tick, dueAt);
  }

  private readonly tick = (): void => {
    this.timer = undefined;
    if (!this.running) return;
    const dueTotal = samplesDue(this.epochMonotonic, performance.now(), this.rate);
    let due = dueTotal - this.emittedInEpoch;
    if (due > this.maxBacklog) {
      // Stalled: skip to the present instead of flooding; timestamps stay exact.
      const skip = due - this.frameSamples;
      this.emittedInEpoch += skip;
      this.sampleIndex += skip;
      due -= skip;
      this.skipped = true;
    }
    while (due > 0) {
      const n = Math.min(due, this.frameSamples);
      this.emitFrame(n);
      due -= n;
    }
    this.schedule();
  };

  private emitFrame(samples: number): void {
    const { amplitudes, frequencies } = this.config;
    const data = new Float32Array(samples * this.width);
    for (let i = 0; i < samples; i++) {
      const index = this.sampleIndex + i;
      let value = 0;
      for (let k = 0; k < frequencies.length; k++) {
        // Phase in cycles, reduced before scaling by 2π so long runs keep full precision.
        const cycles = (((frequencies[k] ?? 0) * index) / this.rate) % 1;
        value += (amplitudes[k] ?? 0) * Math.sin(2 * Math.PI * cycles);
      }
      for (let c = 0; c < this.width; c++) {
        data[i * this.width + c] = this.normal === undefined ? value : value + this.noise * this.normal();
      }
    }
    const frame: Frame = {
      seq: 0, // numbered by the runtime per output port
      timestamp: this.epochWall + (this.emittedInEpoch * 1000) / this.rate,
      sampleRate: this.rate,
      channels: this.channels,
      data,
      ...(this.skipped ? { discontinuity: true } : {}),
      range: this.range,
    };
    this.skipped = false;
    this.sampleIndex += samples;
    this.emittedInEpoch += samples;
    this.context.emit('out', frame);
  }
}

export const createSignalGenerator: NodeFactory = (context) =>
  new SignalGenerator(context, context.config as unknown as SignalGeneratorConfig);
