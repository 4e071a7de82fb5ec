/**
 * The pulled source of EEG acquisition, for every device that produces samples in software
 * (simulated, replay): the headset's configuration rules, real-time pacing, ~10 ms framing, and the
 * 24-bit ADC's quantisation and clipping. Everything else an acquisition does (owners, the order of
 * operations, when a run begins and ends, frame numbering and delivery, `state()`) is the one core
 * of acquisition-core.ts, shared with a live amplifier's pushed source.
 *
 * Pacing: at every tick the engine emits the frames whose last sample is due, counted from the
 * run's start on the monotonic clock, so the number of samples follows elapsed time exactly
 * however late the timers fire (a late timer yields several frames at once). Frames have a fixed
 * number of rows per run (`frameRows`), which also makes the samples independent of timer jitter.
 */
import { AcquisitionCore, type AcquisitionCoreHooks } from './acquisition-core.js';
import type { Frame } from '../core/frame.js';
import type { DeviceClock, TimerHandle } from './clock.js';
import { channelName, type Electrode } from '../core/electrodes.js';
import { type DeviceChannel, type UnplayedChannel, voltageChannel } from './channels.js';
import { DEFAULT_EEG_CONFIG, type EegConfig, type EegConfigChange } from './headset.js';
import { EEG_GAINS, EEG_SAMPLING_FREQUENCIES, type EegSamplingFrequency } from '../core/hardware.js';
import type { EegSignalSource } from './signal-source.js';
import { eegChannelListOrThrow, oneOfOrThrow } from './arguments.js';
import { wallNowMs } from '../core/wall-clock.js';

/** The headset's configuration: its channels are EEG electrodes. */
interface HeadsetEegConfig extends EegConfig {
  readonly channels: readonly Electrode[];
}

/** ADS1299-style converter: ±VREF/gain full scale over 24 bits, VREF = 4.5 V. */
const ADC_REFERENCE_MICROVOLTS = 4_500_000;
const ADC_MAX_CODE = 2 ** 23 - 1;
const ADC_MIN_CODE = -(2 ** 23);

/** The value of one ADC count (µV) at a gain: 2·VREF / gain / 2^24. */
export function adcLsbMicrovolts(gain: number): number {
  return (2 * ADC_REFERENCE_MICROVOLTS) / gain / 2 ** 24;
}

/** The ADC's full scale at a gain, µV: every sample lies in ±this (a frame's `range`). */
export function adcFullScaleMicrovolts(gain: number): number {
  return ADC_REFERENCE_MICROVOLTS / gain;
}

/** Rows per frame at a rate: about 10 ms, at least one. */
export function frameRows(sampleRate: number): number {
  return Math.max(1, Math.round(sampleRate / 100));
}

/** Rounds each value to the nearest ADC code at `gain` and clips at full scale, in place. */
export function quantise(data: Float32Array, gain: number): void {
  const lsb = adcLsbMicrovolts(gain);
  for (let i = 0; i < data.length; i++) {
    const code = Math.round((data[i] ?? 0) / lsb);
    data[i] = (code > ADC_MAX_CODE ? ADC_MAX_CODE : code < ADC_MIN_CODE ? ADC_MIN_CODE : code) * lsb;
  }
}

export interface AcquisitionHooks extends AcquisitionCoreHooks {
  /** True impedance (Ω) of an electrode now, for the signal source. */
  impedance(electrode: Electrode): number;
}

interface Run {
  readonly startedAt: number;
  readonly startedAtWall: number;
  readonly config: EegConfig;
  /** The electrodes acquired, and their names as frames give them (10-20 form, channelName). */
  readonly electrodes: readonly Electrode[];
  readonly channelNames: readonly string[];
  readonly rows: number;
  /** Rows emitted in this run. */
  emitted: number;
  discontinuity: boolean;
  timer: TimerHandle | undefined;
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
  private run: Run | undefined;

  constructor(
    private readonly clock: DeviceClock,
    private readonly source: EegSignalSource,
    private readonly hooks: AcquisitionHooks,
  ) {
    super(defaultsOf(source), hooks);
    this.rates = ratesOf(source);
    this.played = Object.freeze(electrodesOf(source).map((e) => voltageChannel(channelName(e), 'EEG')));
  }

  acquiredChannels(): readonly Electrode[] {
    return this.run?.electrodes ?? this.channelsOf(this.current);
  }

  channels(): readonly DeviceChannel[] {
    return this.played;
  }

  unplayedChannels(): readonly UnplayedChannel[] {
    return this.source.unplayed ?? [];
  }

  channelList(names: readonly string[], field = 'channels'): Electrode[] {
    return eegChannelListOrThrow(names, field);
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
    const channels = this.channelsOf(config);
    this.source.begin(config.samplingFrequency, channels);
    this.run = {
      startedAt: this.clock.now(),
      startedAtWall: this.clock.wallNow(),
      config,
      electrodes: Object.freeze([...channels]),
      channelNames: Object.freeze(channels.map(channelName)),
      rows: frameRows(config.samplingFrequency),
      emitted: 0,
      discontinuity: true,
      timer: undefined,
    };
    this.schedule(this.run);
  }

  /** A configuration change while running: deliver what is due, then start a new run. */
  protected change(config: HeadsetEegConfig): void {
    this.end();
    this.begin(config);
  }

  protected end(): void {
    const run = this.run;
    if (run === undefined) return;
    this.emitDue(run);
    if (run.timer !== undefined) this.clock.clearTimeout(run.timer);
    this.run = undefined;
  }

  /** A source may lack channels (a recording without them): those are absent from the frames. */
  private channelsOf(config: HeadsetEegConfig): readonly Electrode[] {
    const available = this.source.available;
    return available === undefined ? config.channels : config.channels.filter((e) => available.includes(e));
  }

  private schedule(run: Run): void {
    const rate = run.config.samplingFrequency;
    const nextDue = run.startedAt + ((run.emitted + run.rows) * 1000) / rate;
    const wake = (): void => {
      run.timer = undefined;
      if (this.run !== run) return;
      this.emitDue(run);
      if (this.run === run) this.schedule(run);
    };
    run.timer =
      this.clock.setDeadline === undefined
        ? this.clock.setTimeout(wake, Math.max(0, Math.ceil(nextDue - this.clock.now())))
        : this.clock.setDeadline(wake, nextDue);
  }

  private emitDue(run: Run): void {
    const rate = run.config.samplingFrequency;
    const due = Math.floor(((this.clock.now() - run.startedAt) * rate) / 1000 + 1e-9);
    while (run.emitted + run.rows <= due && this.run === run) {
      this.emitFrame(run);
    }
  }

  private emitFrame(run: Run): void {
    const { config, rows } = run;
    const rate = config.samplingFrequency;
    const data = new Float32Array(rows * run.channelNames.length);
    const offsetMs = (run.emitted * 1000) / rate;
    const gap = this.source.fill(data, rows, {
      time: run.startedAt + offsetMs,
      impedance: (electrode) => this.hooks.impedance(electrode),
    });
    // Recorded values (replay) are already what an ADC gave: the gain does not touch them.
    if (this.source.recorded !== true) quantise(data, config.gain);
    const discontinuity = run.discontinuity || gap;
    run.discontinuity = false;
    const frame: Frame = {
      seq: this.nextSeq(),
      timestamp: run.startedAtWall + offsetMs,
      sampleRate: rate,
      channels: run.channelNames,
      data,
      ...(discontinuity ? { discontinuity: true } : {}),
      // A recorded source's values are what some other ADC gave: their bound is not known here.
      ...(this.source.recorded === true ? {} : { range: adcFullScaleMicrovolts(config.gain) }),
      createdAt: wallNowMs(),
    };
    run.emitted += rows;
    this.deliver(frame, rows);
  }
}
