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
 *
 * The frames are made beside the driver (live-production.ts), in one of two places:
 * - in the device's own thread (production/device-thread.ts), where the service opens the
 *   driver: this thread keeps the control, tells that one when a run begins, changes and ends,
 *   and is woken by no frame unless a listener here wants them (`LiveRuns`, given by the headset's
 *   options);
 * - on this thread, on the driver it is given (the tests, a device run from the TypeScript
 *   sources, where no thread can start).
 */
import type { Electrode } from '../../core/electrodes.js';
import { type Frame, MICROVOLT, unitsOrNone } from '../../core/frame.js';
import type { FramePort } from '../../core/node.js';
import type { StreamThread } from '../../core/stream-thread.js';
import { channelListOrThrow, oneOfOrThrow } from '../arguments.js';
import { type DeviceChannel, type UnplayedChannel, voltageChannel } from '../channels.js';
import { AcquisitionCore, type AcquisitionCoreHooks } from '../acquisition-core.js';
import { DeviceArgumentError } from '../errors.js';
import { type EegConfig, type EegConfigChange } from '../headset.js';
import { EEG_GAINS, type EegGain, type EegSamplingFrequency } from '../../core/hardware.js';
import { type LiveEegDriver, liveChannelElectrode } from './driver.js';
import { LiveProduction, type LiveRunPlan } from './live-production.js';
import type { RateVerdict } from './rate-guard.js';

/** What the frames' maker tells the acquisition, from wherever it runs. */
export interface LiveRunsHooks {
  /** A frame a listener on this thread wants (see `LiveRuns.framesWanted`). */
  frame(frame: Frame): void;
  /** A block said rows were lost before it (never filled in). */
  rowsLost(rows: number): void;
  /** The rate guard's verdict changed. */
  rate(verdict: RateVerdict): void;
  /** The frames' maker is gone (its thread died): a run going on ends as a failure. */
  failed(error: Error): void;
}

/**
 * Where the runs' frames are made when not on this thread: the device's thread, which holds the
 * driver (production/live-thread-driver.ts).
 */
export interface LiveRuns {
  /** A run begins (`fresh`: its sample count starts at 0), or goes on in a new configuration. */
  begin(plan: LiveRunPlan, fresh: boolean): void;
  /** The run ends; resolves once its last frames are written. */
  end(): Promise<void>;
  /** Why the source's rate is reported now, or undefined. */
  rateProblem(): string | undefined;
  /** A port the frames are written to, from now until it is closed. */
  framePort(): FramePort;
  /** The thread the frames are made in, when it may host streams. */
  streamThread(): StreamThread | undefined;
  /** Whether a listener on this thread wants the frames. */
  framesWanted(wanted: boolean): void;
  /** The samples of the present (or last) run. */
  samples(): number;
}

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
  /** The channels of the run going on. */
  private channelsOfRun: readonly string[] | undefined;
  /** The frames made on this thread, beside the driver; undefined when they are made `elsewhere`. */
  private readonly local: LiveProduction | undefined;
  private readonly elsewhere: LiveRuns | undefined;

  constructor(
    private readonly driver: LiveEegDriver,
    private readonly hooks: LiveAcquisitionHooks,
    /** Where the frames are made, when not on this thread (the device's thread). */
    runs?: (hooks: LiveRunsHooks) => LiveRuns,
  ) {
    const layout = layoutOf(driver, hooks.deviceName);
    super(layout.defaults, hooks);
    this.layout = layout;
    if (runs === undefined) {
      this.local = new LiveProduction(driver, hooks.deviceName, {
        frame: (frame, rows) => {
          this.deliver(frame, rows);
        },
        rowsLost: (rows) => {
          hooks.onRowsLost(rows);
        },
        rate: (verdict) => {
          hooks.onRate(verdict);
        },
        nextSeq: () => this.nextSeq(),
        wallNow: () => hooks.wallNow(),
      });
    } else {
      this.elsewhere = runs({
        frame: (frame) => {
          this.emit(frame);
        },
        rowsLost: (rows) => {
          hooks.onRowsLost(rows);
        },
        rate: (verdict) => {
          hooks.onRate(verdict);
        },
        failed: (error) => {
          this.channelsOfRun = undefined;
          this.failed(error);
        },
      });
    }
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
    return (this.local ?? this.elsewhere)?.rateProblem();
  }

  acquiredChannels(): readonly string[] {
    return this.channelsOfRun ?? this.current.channels;
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
    this.local?.close();
    return ended;
  }

  override framePort(): FramePort {
    return this.elsewhere?.framePort() ?? super.framePort();
  }

  override streamThread(): StreamThread | undefined {
    return this.elsewhere?.streamThread();
  }

  protected override framesWanted(wanted: boolean): void {
    this.elsewhere?.framesWanted(wanted);
  }

  protected override producedSamples(): number | undefined {
    return this.elsewhere?.samples();
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
    const plan = this.plan(config);
    if (this.elsewhere === undefined) this.local?.begin(plan);
    else this.elsewhere.begin(plan, true);
  }

  /** The frames change from here on; the next one says `discontinuity`. */
  protected change(config: EegConfig): void {
    const plan = this.plan(config);
    if (this.elsewhere === undefined) this.local?.change(plan);
    else this.elsewhere.begin(plan, false);
  }

  protected end(): void | Promise<void> {
    this.channelsOfRun = undefined;
    if (this.elsewhere !== undefined) return this.elsewhere.end();
    this.local?.end();
  }

  /** A run of `config`, as the frames' maker needs it. */
  private plan(config: EegConfig): LiveRunPlan {
    const channels = Object.freeze([...config.channels]);
    this.channelsOfRun = channels;
    const { columns } = this.layout;
    const units = unitsOrNone(Object.freeze(channels.map((name) => this.unitOf(name))));
    return {
      rate: config.samplingFrequency,
      columns: channels.map((name) => columns.get(name) as number),
      channels,
      ...(units === undefined ? {} : { units }),
    };
  }

  /** The unit of a played channel in frames (core/frame.ts `units`). */
  private unitOf(name: string): string {
    return this.layout.played.find((channel) => channel.name === name)?.unit ?? MICROVOLT;
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
