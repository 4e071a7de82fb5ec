/**
 * The pushed source of EEG acquisition, a live amplifier's: the amplifier's blocks arrive when its
 * own clock says so, and live-framer.ts cuts them into frames of ~10 ms as they come. Everything
 * else an acquisition does (owners, `start(owner, initial)`, the order of operations, reset and its
 * device_busy rule, when a run begins and ends, frame numbering and delivery, `state()`) is the one
 * core of ../acquisition-core.ts, shared with the simulated and replay devices' pulled source.
 *
 * Configuration is what the amplifier allows: channels are any of the electrodes its channels are
 * played as; the rate is the amplifier's own (any other is `validation_failed` naming it); the gain
 * goes to `driver.setGain` where the driver has one, else only the amplifier's gain is accepted.
 * Operations are run one after another (a start waits for a configuration the driver is applying).
 *
 * Every block passes the rate guard (rate-guard.ts) before it is framed: a source that sends
 * faster or slower than it declares is reported (`onRate`), the next frame says so in its
 * `annotation`, and frame times are held between the previous frame's and the block's arrival
 * plus the guard's tolerance, for the device's whole life.
 */
import type { Electrode } from '../../core/electrodes.js';
import { MICROVOLT, unitsOrNone } from '../../core/frame.js';
import { channelListOrThrow, oneOfOrThrow } from '../arguments.js';
import { type DeviceChannel, type UnplayedChannel, voltageChannel } from '../channels.js';
import { AcquisitionCore, type AcquisitionCoreHooks } from '../acquisition-core.js';
import { DeviceArgumentError } from '../errors.js';
import type { Unsubscribe } from '../events.js';
import { type EegConfig, type EegConfigChange } from '../headset.js';
import { EEG_GAINS, type EegGain, type EegSamplingFrequency } from '../../core/hardware.js';
import { type LiveEegDriver, type LiveSamples, liveChannelElectrode } from './driver.js';
import { LiveFramer } from './live-framer.js';
import { RateGuard, type RateVerdict } from './rate-guard.js';

export interface LiveAcquisitionHooks extends AcquisitionCoreHooks {
  /** The device in words, for messages (`The Cyton board on /dev/ttyUSB0`). */
  readonly deviceName: string;
  /** A block said rows were lost before it (never filled in). */
  onRowsLost(rows: number): void;
  /** The rate guard's verdict changed. */
  onRate(verdict: RateVerdict): void;
  /** Wall-clock ms now: when a block arrived. */
  wallNow(): number;
}

interface Run {
  readonly config: EegConfig;
  readonly channels: readonly string[];
  framer: LiveFramer;
}

/** What the amplifier's channels make of the acquisition: what it plays, and its defaults. */
interface Layout {
  /** The played channels' names (the configuration's and the frames' form) and their columns. */
  readonly columns: Map<string, number>;
  readonly played: readonly DeviceChannel[];
  readonly unplayed: readonly UnplayedChannel[];
  readonly defaults: EegConfig;
  readonly gains: readonly EegGain[];
}

/** The amplifier's channels and rate as an acquisition, or validation_failed when it plays none. */
function layoutOf(driver: LiveEegDriver, deviceName: string): Layout {
  const columns = new Map<string, number>();
  driver.channels().forEach((channel, column) => {
    if (channel.name !== undefined) columns.set(channel.name, column);
  });
  const played = Object.freeze(
    driver.channels().flatMap((c) => (c.name === undefined ? [] : [voltageChannel(c.name, c.type, c.unit)])),
  );
  const unplayed = Object.freeze(
    driver
      .channels()
      .flatMap((c) => (c.name === undefined ? [{ name: c.label, reason: c.reason ?? 'not played' }] : [])),
  );
  if (columns.size === 0) {
    throw new DeviceArgumentError(
      `${deviceName} has no channel it can play (${unplayed.map((c) => `${c.name}: ${c.reason}`).join('; ') || 'it has none'}).`,
      { field: 'channels' },
    );
  }
  const amplifierGain = (driver.gain?.() ?? 1) as EegGain;
  return {
    columns,
    played,
    unplayed,
    gains: driver.setGain === undefined ? [amplifierGain] : EEG_GAINS,
    defaults: Object.freeze({
      channels: Object.freeze([...columns.keys()]),
      gain: amplifierGain,
      // A live amplifier's rate may lie outside the standard set (an LSL stream at 256 Hz).
      samplingFrequency: driver.sampleRate() as EegSamplingFrequency,
    }),
  };
}

export class LiveAcquisition extends AcquisitionCore<EegConfig> {
  private readonly layout: Layout;
  private run: Run | undefined;
  private readonly unsubscribe: Unsubscribe;
  private readonly guard: RateGuard;

  constructor(
    private readonly driver: LiveEegDriver,
    private readonly hooks: LiveAcquisitionHooks,
  ) {
    const layout = layoutOf(driver, hooks.deviceName);
    super(layout.defaults, hooks);
    this.layout = layout;
    this.guard = new RateGuard(this.defaults.samplingFrequency, hooks.deviceName);
    this.unsubscribe = driver.onSamples((block) => {
      this.take(block);
    });
  }

  /** The headset electrodes the played channels are named for, in column order (impedance). */
  mappedElectrodes(): readonly Electrode[] {
    return this.driver.channels().flatMap((c) => {
      const electrode = liveChannelElectrode(c);
      return electrode === undefined ? [] : [electrode];
    });
  }

  /** Why the source's rate is reported now (rate-guard.ts), or undefined. */
  rateMismatch(): string | undefined {
    return this.guard.problem();
  }

  acquiredChannels(): readonly string[] {
    return this.run?.channels ?? this.current.channels;
  }

  channels(): readonly DeviceChannel[] {
    return this.layout.played;
  }

  unplayedChannels(): readonly UnplayedChannel[] {
    return this.layout.unplayed;
  }

  channelList(names: readonly string[], field = 'channels'): string[] {
    return channelListOrThrow(names, [...this.layout.columns.keys()], this.hooks.deviceName, field);
  }

  /** Stops for good: no frame after this (the driver is closed by the headset). */
  override close(): Promise<void> {
    const ended = super.close();
    this.unsubscribe();
    return ended;
  }

  protected override initial(change: EegConfigChange): EegConfig {
    // A rate the amplifier does not have is a wish here, not an error: the amplifier keeps its own
    // and the caller (an eeg-source) resamples, as when acquisition already runs.
    const { samplingFrequency, ...rest } = change;
    return this.validated(samplingFrequency === this.defaults.samplingFrequency ? change : rest);
  }

  protected override async apply(config: EegConfig): Promise<void> {
    if (config.gain !== this.current.gain && this.driver.setGain !== undefined)
      await this.driver.setGain(config.gain);
  }

  protected override power(): Promise<void> {
    return this.driver.start();
  }

  // Rows the driver delivers while it stops (a sample it held back) are real: framed, then the rows
  // held back in the framer leave as a shorter frame (end).
  protected override unpower(): Promise<void> {
    return this.driver.stop();
  }

  protected begin(config: EegConfig): void {
    this.guard.restart(config.samplingFrequency);
    this.run = this.newRun(config);
  }

  /** The frames change from here on; the next one says `discontinuity`. */
  protected change(config: EegConfig): void {
    this.run?.framer.flush();
    this.run = this.newRun(config);
  }

  protected end(): void {
    const run = this.run;
    if (run === undefined) return;
    run.framer.flush();
    this.run = undefined;
    this.guard.restart(this.current.samplingFrequency);
  }

  private newRun(config: EegConfig): Run {
    const channels = Object.freeze([...config.channels]);
    const { columns } = this.layout;
    return {
      config,
      channels,
      framer: new LiveFramer({
        rate: config.samplingFrequency,
        columns: channels.map((name) => columns.get(name) as number),
        channelNames: channels,
        units: unitsOrNone(Object.freeze(channels.map((name) => this.unitOf(name)))),
        width: this.driver.channels().length,
        range: () => this.driver.range(),
        nextSeq: () => this.nextSeq(),
        stamp: (proposed) => this.guard.stamp(proposed),
        emit: (frame) => {
          this.deliver(frame, frame.data.length / frame.channels.length);
        },
      }),
    };
  }

  /** The unit of a played channel in frames (core/frame.ts `units`). */
  private unitOf(name: string): string {
    return this.layout.played.find((channel) => channel.name === name)?.unit ?? MICROVOLT;
  }

  private take(block: LiveSamples): void {
    const run = this.run;
    if (run === undefined) return;
    if (block.lost > 0) this.hooks.onRowsLost(block.lost);
    const verdict = this.guard.observe(block, this.hooks.wallNow());
    if (verdict !== undefined) {
      run.framer.annotate(verdict.message);
      this.hooks.onRate(verdict);
    }
    run.framer.push(block);
  }

  protected validated(change: EegConfigChange): EegConfig {
    const { gains } = this.layout;
    return {
      channels: change.channels === undefined ? this.current.channels : this.channelList(change.channels),
      gain:
        change.gain === undefined
          ? this.current.gain
          : oneOfOrThrow(
              change.gain,
              gains,
              'gain',
              gains.length === 1
                ? " (the amplifier's own gain, which headsetd cannot set on this device)"
                : '',
            ),
      samplingFrequency:
        change.samplingFrequency === undefined
          ? this.current.samplingFrequency
          : oneOfOrThrow(
              change.samplingFrequency,
              [this.defaults.samplingFrequency],
              'samplingFrequency',
              ` Hz (the amplifier's own rate; resample in a stream to get another)`,
            ),
    };
  }
}
