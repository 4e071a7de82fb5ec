/**
 * The pulled source of EEG acquisition, for every device that produces samples in software
 * (simulated, replay): the headset's configuration rules and where its frames are produced.
 * Everything else an acquisition does (owners, the order of operations, when a run begins and
 * ends, frame numbering and delivery, `state()`) is the one core of acquisition-core.ts, shared
 * with a live amplifier's pushed source; the pacing, framing and ADC are production/producer.ts.
 *
 * The frames are produced in one of two places:
 * - in the device's own thread (production/device-thread.ts), in the service: the main thread
 *   keeps the control and is woken by no frame unless a listener here wants them;
 * - on this thread, when the acquisition is given no thread (the tests that move a clock by hand,
 *   and a device run from the TypeScript sources).
 */
import { AcquisitionCore, type AcquisitionCoreHooks } from './acquisition-core.js';
import type { DeviceClock } from './clock.js';
import { channelName, type Electrode } from '../core/electrodes.js';
import type { FramePort } from '../core/node.js';
import type { StreamThread } from '../core/stream-thread.js';
import { type DeviceChannel, type UnplayedChannel, voltageChannel } from './channels.js';
import { DEFAULT_EEG_CONFIG, type EegConfig, type EegConfigChange } from './headset.js';
import { EEG_GAINS, EEG_SAMPLING_FREQUENCIES, type EegSamplingFrequency } from '../core/hardware.js';
import type { EegSignalSource } from './signal-source.js';
import { eegChannelListOrThrow, oneOfOrThrow } from './arguments.js';
import { FrameProducer, type PlayedMarker, type RunPlan } from './production/producer.js';
import { DeviceThread, type DeviceThreadOptions } from './production/device-thread.js';

/** A source that leaves no channel unplayed: one list, so that its readers may keep what they made of it. */
const NONE_UNPLAYED: readonly UnplayedChannel[] = Object.freeze([]);

/** The headset's configuration: its channels are EEG electrodes. */
interface HeadsetEegConfig extends EegConfig {
  readonly channels: readonly Electrode[];
}

export interface AcquisitionHooks extends AcquisitionCoreHooks {
  /** True impedance (Ω) of an electrode now, for the signal source (produced on this thread). */
  impedance(electrode: Electrode): number;
  /** Markers the source's samples passed (a replayed file's), before the frame that holds them. */
  onMarkers?: (markers: readonly PlayedMarker[]) => void;
}

/** Where the runs' frames are produced: on this thread, or in the device's thread. */
interface Production {
  begin(plan: RunPlan): void;
  change(plan: RunPlan): void;
  end(at: number): void | Promise<void>;
}

/** The standard rates, plus the source's native rate when it has one outside them. */
function ratesOf(source: EegSignalSource): readonly EegSamplingFrequency[] {
  // A native rate may lie outside the standard set (a 160 Hz recording): reported as it is.
  const native = source.nativeRate as EegSamplingFrequency | undefined;
  return native === undefined || EEG_SAMPLING_FREQUENCIES.includes(native)
    ? EEG_SAMPLING_FREQUENCIES
    : [...EEG_SAMPLING_FREQUENCIES, native];
}

/** The electrodes the source can deliver: every EEG electrode but a file's missing ones. */
function electrodesOf(source: EegSignalSource): readonly Electrode[] {
  const available = source.available;
  return available === undefined || available.length === 0
    ? (DEFAULT_EEG_CONFIG.channels as readonly Electrode[])
    : Object.freeze([...available]);
}

/**
 * `DEFAULT_EEG_CONFIG`, except for a source with its own channels or rate (a replayed file): then
 * the channels it has and its native rate.
 */
function defaultsOf(source: EegSignalSource): HeadsetEegConfig {
  return Object.freeze({
    channels: electrodesOf(source),
    gain: DEFAULT_EEG_CONFIG.gain,
    samplingFrequency:
      (source.nativeRate as EegSamplingFrequency | undefined) ?? DEFAULT_EEG_CONFIG.samplingFrequency,
  });
}

export class AcquisitionEngine extends AcquisitionCore<HeadsetEegConfig> {
  private readonly rates: readonly EegSamplingFrequency[];
  /** The electrodes the source can deliver, as channels. */
  private readonly played: readonly DeviceChannel[];
  /** The electrodes of the run going on. */
  private electrodes: readonly Electrode[] | undefined;
  private readonly production: Production;
  private readonly thread: DeviceThread | undefined;
  /** The id of the last run planned (RunPlan.id). */
  private runId = 0;

  constructor(
    private readonly clock: DeviceClock,
    private readonly source: EegSignalSource,
    hooks: AcquisitionHooks,
    /** The device's thread to produce the frames in; absent: on this thread. */
    thread?: DeviceThreadOptions,
  ) {
    super(defaultsOf(source), hooks);
    this.rates = ratesOf(source);
    this.played = Object.freeze(electrodesOf(source).map((e) => voltageChannel(channelName(e), 'EEG')));
    const onMarkers = (markers: readonly PlayedMarker[]): void => {
      hooks.onMarkers?.(markers);
    };
    if (thread === undefined) {
      const producer = new FrameProducer(
        clock,
        source,
        (electrode) => hooks.impedance(electrode),
        {
          frame: (frame, rows) => {
            this.deliver(frame, rows);
          },
          markers: onMarkers,
          failed: (error, plan) => {
            this.runFailed(error instanceof Error ? error : new Error(String(error)), plan.id);
          },
        },
        () => this.nextSeq(),
      );
      this.production = {
        begin: (plan) => {
          producer.begin(plan);
        },
        change: (plan) => {
          producer.end(plan.startedAt);
          producer.begin(plan);
        },
        end: (at) => {
          producer.end(at);
        },
      };
    } else {
      const deviceThread = new DeviceThread(thread, {
        frame: (frame) => {
          this.emit(frame);
        },
        markers: onMarkers,
        failed: (error, run) => {
          this.runFailed(error, run);
        },
      });
      this.thread = deviceThread;
      this.production = {
        begin: (plan) => {
          deviceThread.begin(plan, true);
        },
        change: (plan) => {
          deviceThread.change(plan);
        },
        end: (at) => deviceThread.end(at),
      };
    }
  }

  acquiredChannels(): readonly Electrode[] {
    return this.electrodes ?? this.channelsOf(this.current);
  }

  channels(): readonly DeviceChannel[] {
    return this.played;
  }

  unplayedChannels(): readonly UnplayedChannel[] {
    return this.source.unplayed ?? NONE_UNPLAYED;
  }

  channelList(names: readonly string[], field = 'channels'): Electrode[] {
    return eegChannelListOrThrow(names, field);
  }

  override framePort(): FramePort {
    return this.thread?.openPort() ?? super.framePort();
  }

  override streamThread(): StreamThread | undefined {
    return this.thread?.open === true ? this.thread : undefined;
  }

  /** Tells the device's thread of a change of the model it copies (the motors, the wearer). */
  updateThread(message: Parameters<DeviceThread['update']>[0]): void {
    this.thread?.update(message);
  }

  override close(): Promise<void> {
    const ended = super.close();
    this.thread?.close();
    return ended;
  }

  protected override framesWanted(wanted: boolean): void {
    this.thread?.wantFrames(wanted);
  }

  protected override producedSamples(): number | undefined {
    return this.thread?.samples();
  }

  protected validated(change: EegConfigChange): HeadsetEegConfig {
    return {
      channels:
        change.channels === undefined ? this.current.channels : eegChannelListOrThrow(change.channels),
      gain: change.gain === undefined ? this.current.gain : oneOfOrThrow(change.gain, EEG_GAINS, 'gain'),
      samplingFrequency:
        change.samplingFrequency === undefined
          ? this.current.samplingFrequency
          : oneOfOrThrow(change.samplingFrequency, this.rates, 'samplingFrequency', ' Hz'),
    };
  }

  protected begin(config: HeadsetEegConfig): void {
    this.production.begin(this.plan(config));
  }

  /** A configuration change while running: what is due leaves, then a new run starts. */
  protected change(config: HeadsetEegConfig): void {
    this.production.change(this.plan(config));
  }

  protected end(): void | Promise<void> {
    this.electrodes = undefined;
    return this.production.end(this.clock.now());
  }

  private plan(config: HeadsetEegConfig): RunPlan {
    const electrodes = Object.freeze([...this.channelsOf(config)]);
    this.electrodes = electrodes;
    this.runId++;
    const startedAt = this.clock.now();
    return {
      id: this.runId,
      config,
      electrodes,
      startedAt,
      startedAtWall: this.clock.wallAt(startedAt),
    };
  }

  /** The run `run` failed (undefined: the one going on, whose thread died); a later run goes on. */
  private runFailed(error: Error, run: number | undefined): void {
    if (run !== undefined && run !== this.runId) return;
    this.electrodes = undefined;
    this.failed(error);
  }

  /** A source may lack channels (a recording without them): those are absent from the frames. */
  private channelsOf(config: HeadsetEegConfig): readonly Electrode[] {
    const available = this.source.available;
    return available === undefined ? config.channels : config.channels.filter((e) => available.includes(e));
  }
}
