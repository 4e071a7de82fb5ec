/**
 * The `eeg-source` built-in: the headset's EEG as frames (docs/api.md §Built-in executables).
 * Subscribes to the device's acquisition through `context.device` (in a stream's worker, a proxy
 * of the main thread's device: see streams/runtime/device-bridge.ts); the device layer starts acquisition at
 * `samplingFrequency` when it was idle and stops it when its last subscriber leaves.
 *
 * When acquisition already runs at another rate, the frames are converted to the node's own rate
 * with dsp/resample.ts (polyphase, linear-phase FIR; the method is documented there and in
 * dsp/rate-converter.ts); their `range` is the device's × the converter's gain bound
 * (./frame-range.ts, about 2). Pause keeps the subscription (acquisition is
 * shared) and drops frames; the runtime marks the first frame after resume as a discontinuity.
 * Samples the device lost upstream (a frame's `lostSamples`) are summed in the node's metric
 * `lostSamples`, at the device's rate.
 */
import type { Frame } from '../../core/frame.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../../core/node.js';
import { RateConverter } from '../../dsp/rate-converter.js';
import { resamplerL1, scaledRange } from './frame-range.js';

export interface EegSourceConfig {
  channels?: string[];
  samplingFrequency?: number;
  /** The amplifier's gain to start acquisition at when this node starts it (eeg_source's `gain`). */
  gain?: number;
  /** Frames of this duration instead of the device's (about 10 ms); see builtins.ts. */
  frameMs?: number;
}

export const NO_DEVICE_MESSAGE =
  'no EEG device is attached to this service, so eeg-source cannot start (use signal-generator for a synthetic signal)';

class EegSource implements NodeInstance {
  private unsubscribe: (() => void) | undefined;
  private paused = false;
  private converter: RateConverter | undefined;
  /** The converter's gain bound: a converted frame's range is the device's × this. */
  private converterL1 = 1;

  constructor(
    private readonly context: NodeContext,
    private readonly config: EegSourceConfig,
  ) {}

  async start(): Promise<void> {
    const device = this.context.device;
    if (device === undefined) throw new Error(NO_DEVICE_MESSAGE);
    // No list: every channel acquired when the first frame comes (the device keeps that list).
    const channels = (this.config.channels ?? []).map((c) => c.toUpperCase());
    const rate = this.config.samplingFrequency;
    // The device refuses channels it does not acquire (channels_unavailable, pointing at `channels`),
    // and reports (as this node's condition, on the main thread) when it later holds frames back.
    this.unsubscribe = await device.subscribe(
      {
        channels,
        ...(rate === undefined ? {} : { sampleRate: rate }),
        ...(this.config.gain === undefined ? {} : { gain: this.config.gain }),
        ...(this.config.frameMs === undefined ? {} : { frameMs: this.config.frameMs }),
        owner: { streamId: this.context.streamId, nodeId: this.context.nodeId },
      },
      (frame) => {
        this.onDeviceFrame(frame);
      },
    );
    this.context.countMetric?.('lostSamples', 0);
    const what = channels.length === 0 ? 'every acquired channel' : `${channels.length} channel(s)`;
    const frames = this.config.frameMs === undefined ? '' : `, in frames of ${this.config.frameMs} ms`;
    this.context.log(`subscribed to ${what}${rate === undefined ? '' : ` at ${rate} Hz`}${frames}`);
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.converter?.reset();
  }

  stop(): Promise<void> {
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    unsubscribe?.();
    return Promise.resolve();
  }

  private onDeviceFrame(frame: Frame): void {
    if (this.unsubscribe === undefined) return;
    // Samples the device lost before this frame (a live amplifier's dropped packets), at the
    // device's rate: counted whether or not the node is paused, since they are the source's loss.
    if ((frame.lostSamples ?? 0) > 0) this.context.countMetric?.('lostSamples', frame.lostSamples as number);
    if (this.paused) return;
    const wanted = this.config.samplingFrequency;
    if (wanted === undefined || frame.sampleRate === wanted) {
      this.converter = undefined;
      this.context.emit('out', frame);
      return;
    }
    if (this.converter?.matches(frame.sampleRate, wanted, frame.channels.length) !== true) {
      this.converter = new RateConverter(frame.sampleRate, wanted, frame.channels.length);
      this.converterL1 = resamplerL1(frame.sampleRate, wanted);
      this.context.log(`acquisition runs at ${frame.sampleRate} Hz: converting to ${wanted} Hz`);
    }
    const converted = this.converter.process(frame);
    if (converted === undefined) return;
    const range = scaledRange(frame.range, this.converterL1);
    this.context.emit('out', range === undefined ? converted : { ...converted, range });
  }
}

export const createEegSource: NodeFactory = (context) => new EegSource(context, context.config);
