/**
 * EEG acquisition of a live amplifier: the semantics of the simulated device's acquisition
 * (owners, `start(owner, initial)`, configuration, reset and its device_busy rule, frames of ~10 ms
 * with `discontinuity` on the first after a start or a change), but pushed: the amplifier's blocks
 * arrive when its own clock says so, and live-framer.ts cuts them into frames as they come. Who
 * holds it is the same code as the simulated device's (../acquisition-owners.ts).
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
import { type Frame, MICROVOLT, unitsOrNone } from '../../core/frame.js';
import { channelListOrThrow, oneOfOrThrow } from '../arguments.js';
import { type DeviceChannel, type UnplayedChannel, voltageChannel } from '../channels.js';
import { AcquisitionOwners, type AcquisitionOwnersHooks, sameEegConfig } from '../acquisition-owners.js';
import { DeviceArgumentError } from '../errors.js';
import { ListenerSet, type Unsubscribe } from '../events.js';
import {
  type AcquisitionOwner,
  type AcquisitionState,
  EEG_GAINS,
  type EegAcquisition,
  type EegConfig,
  type EegConfigChange,
  type EegGain,
  type EegSamplingFrequency,
} from '../headset.js';
import { type LiveEegDriver, type LiveSamples, liveChannelElectrode } from './driver.js';
import { LiveFramer } from './live-framer.js';
import { RateGuard, type RateVerdict } from './rate-guard.js';

export interface LiveAcquisitionHooks extends AcquisitionOwnersHooks {
  /** The device in words, for messages (`The Cyton board on /dev/ttyUSB0`). */
  readonly deviceName: string;
  onStarted(config: EegConfig): void;
  onStopped(samples: number): void;
  /** A block said rows were lost before it (never filled in). */
  onRowsLost(rows: number): void;
  /** The rate guard's verdict changed. */
  onRate(verdict: RateVerdict): void;
  /** Wall-clock ms now: when a block arrived. */
  wallNow(): number;
  onListenerError?: (error: unknown) => void;
}

interface Run {
  readonly config: EegConfig;
  readonly channels: readonly string[];
  framer: LiveFramer;
}

/** The names the driver's channels are played under, with their column, in column order. */
function playedColumns(driver: LiveEegDriver): Map<string, number> {
  const columns = new Map<string, number>();
  driver.channels().forEach((channel, column) => {
    if (channel.name !== undefined) columns.set(channel.name, column);
  });
  return columns;
}

export class LiveAcquisition implements EegAcquisition {
  /** The played channels' names (the configuration's and the frames' form) and their columns. */
  private readonly columns: Map<string, number>;
  private readonly played: readonly DeviceChannel[];
  private readonly unplayed: readonly UnplayedChannel[];
  private readonly defaults: EegConfig;
  private readonly gains: readonly EegGain[];
  private current: EegConfig;
  private readonly owners: AcquisitionOwners;
  private readonly listeners: ListenerSet<Frame>;
  private run: Run | undefined;
  private seq = 0;
  /** The operations in flight, one after another. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly unsubscribe: Unsubscribe;
  private readonly guard: RateGuard;

  constructor(
    private readonly driver: LiveEegDriver,
    private readonly hooks: LiveAcquisitionHooks,
  ) {
    this.listeners = new ListenerSet<Frame>(hooks.onListenerError);
    this.owners = new AcquisitionOwners(hooks);
    this.columns = playedColumns(driver);
    this.played = Object.freeze(
      driver
        .channels()
        .flatMap((c) => (c.name === undefined ? [] : [voltageChannel(c.name, c.type, c.unit)])),
    );
    this.unplayed = Object.freeze(
      driver
        .channels()
        .flatMap((c) => (c.name === undefined ? [{ name: c.label, reason: c.reason ?? 'not played' }] : [])),
    );
    if (this.columns.size === 0) {
      throw new DeviceArgumentError(
        `${hooks.deviceName} has no channel it can play (${this.unplayed.map((c) => `${c.name}: ${c.reason}`).join('; ') || 'it has none'}).`,
        { field: 'channels' },
      );
    }
    const amplifierGain = (driver.gain?.() ?? 1) as EegGain;
    this.gains = driver.setGain === undefined ? [amplifierGain] : EEG_GAINS;
    this.defaults = Object.freeze({
      channels: Object.freeze([...this.columns.keys()]),
      gain: amplifierGain,
      // A live amplifier's rate may lie outside the standard set (an LSL stream at 256 Hz).
      samplingFrequency: driver.sampleRate() as EegSamplingFrequency,
    });
    this.current = this.defaults;
    this.guard = new RateGuard(this.defaults.samplingFrequency, hooks.deviceName);
    this.unsubscribe = driver.onSamples((block) => {
      this.take(block);
    });
  }

  config(): EegConfig {
    return this.current;
  }

  configure(change: EegConfigChange): Promise<EegConfig> {
    return this.serial(async () => {
      const next = this.validated(change);
      if (sameEegConfig(next, this.current)) return this.current;
      await this.applyGain(next.gain);
      this.current = next;
      // Running: the frames change from here on, the next one says `discontinuity`.
      if (this.run !== undefined) {
        this.run.framer.flush();
        this.run = this.newRun(next);
      }
      return this.current;
    });
  }

  reset(options?: { readonly force?: boolean }): Promise<EegConfig> {
    return this.serial(async () => {
      this.owners.reset(this.run !== undefined, options?.force);
      await this.halt();
      await this.applyGain(this.defaults.gain);
      this.current = this.defaults;
      return this.current;
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
    return this.played;
  }

  unplayedChannels(): readonly UnplayedChannel[] {
    return this.unplayed;
  }

  channelList(names: readonly string[], field = 'channels'): string[] {
    return channelListOrThrow(names, [...this.columns.keys()], this.hooks.deviceName, field);
  }

  start(owner: AcquisitionOwner, initial?: EegConfigChange): Promise<AcquisitionState> {
    return this.serial(async () => {
      if (this.owners.join(owner, this.run !== undefined)) return this.state();
      if (initial !== undefined) {
        // A rate the amplifier does not have is a wish here, not an error: the amplifier keeps its
        // own and the caller (an eeg-source) resamples, as when acquisition already runs.
        const { samplingFrequency, ...rest } = initial;
        const next = this.validated(samplingFrequency === this.defaults.samplingFrequency ? initial : rest);
        await this.applyGain(next.gain);
        this.current = next;
      }
      await this.driver.start();
      if (this.owners.isClosed()) {
        // Closed while the amplifier was starting: nothing may flow after a close.
        await this.driver.stop();
        this.owners.assertOpen();
      }
      this.owners.started(owner);
      this.guard.restart(this.current.samplingFrequency);
      this.run = this.newRun(this.current);
      this.hooks.onStarted(this.current);
      return this.state();
    });
  }

  stop(owner: AcquisitionOwner): Promise<AcquisitionState> {
    return this.serial(async () => {
      if (this.owners.leave(owner)) await this.halt();
      return this.state();
    });
  }

  state(): AcquisitionState {
    return this.owners.state(this.run !== undefined, this.current);
  }

  onFrame(listener: (frame: Frame) => void): Unsubscribe {
    return this.listeners.add(listener);
  }

  /** Stops for good: no frame after this (the driver is closed by the headset). */
  close(): void {
    this.owners.close();
    const run = this.run;
    this.run = undefined;
    if (run !== undefined) {
      run.framer.flush();
      this.hooks.onStopped(this.owners.sampleCount());
    }
    this.unsubscribe();
    this.listeners.clear();
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private newRun(config: EegConfig): Run {
    const channels = Object.freeze([...config.channels]);
    return {
      config,
      channels,
      framer: new LiveFramer({
        rate: config.samplingFrequency,
        columns: channels.map((name) => this.columns.get(name) as number),
        channelNames: channels,
        units: unitsOrNone(Object.freeze(channels.map((name) => this.unitOf(name)))),
        width: this.driver.channels().length,
        range: () => this.driver.range(),
        nextSeq: () => this.seq++,
        stamp: (proposed) => this.guard.stamp(proposed),
        emit: (frame) => {
          this.owners.count(frame.data.length / frame.channels.length);
          this.listeners.emit(frame);
        },
      }),
    };
  }

  /** The unit of a played channel in frames (core/frame.ts `units`). */
  private unitOf(name: string): string {
    return this.played.find((channel) => channel.name === name)?.unit ?? MICROVOLT;
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

  private async halt(): Promise<void> {
    const run = this.run;
    if (run === undefined) return;
    // Rows the driver delivers while it stops (a sample it held back) are real: framed, then the
    // rows held back in the framer leave as a shorter frame.
    try {
      await this.driver.stop();
    } finally {
      // close() may have ended the run meanwhile (it flushed and reported it).
      if (this.run === run) {
        this.run = undefined;
        run.framer.flush();
        this.guard.restart(this.current.samplingFrequency);
        this.hooks.onStopped(this.owners.sampleCount());
      }
    }
  }

  private async applyGain(gain: EegGain): Promise<void> {
    if (gain !== this.current.gain && this.driver.setGain !== undefined) await this.driver.setGain(gain);
  }

  private validated(change: EegConfigChange): EegConfig {
    return {
      channels: change.channels === undefined ? this.current.channels : this.channelList(change.channels),
      gain:
        change.gain === undefined
          ? this.current.gain
          : oneOfOrThrow(
              change.gain,
              this.gains,
              'gain',
              this.gains.length === 1
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
