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
import { channelName, type Electrode, isEegElectrode, parseElectrode } from '../../core/electrodes.js';
import type { Frame } from '../../core/frame.js';
import { eegChannelListOrThrow, oneOfOrThrow } from '../arguments.js';
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
import type { LiveEegDriver, LiveSamples } from './driver.js';
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
  readonly electrodes: readonly Electrode[];
  framer: LiveFramer;
}

/** The electrodes the driver's channels are played as, first column of each, in column order. */
function mappedColumns(driver: LiveEegDriver): Map<Electrode, number> {
  const columns = new Map<Electrode, number>();
  driver.channels().forEach((channel, column) => {
    const electrode = channel.electrode;
    if (electrode !== undefined && isEegElectrode(electrode) && !columns.has(electrode)) {
      columns.set(electrode, column);
    }
  });
  return columns;
}

export class LiveAcquisition implements EegAcquisition {
  private readonly columns: Map<Electrode, number>;
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
    this.columns = mappedColumns(driver);
    if (this.columns.size === 0) {
      const labels = driver
        .channels()
        .map((c) => c.label)
        .join(', ');
      throw new DeviceArgumentError(
        `${hooks.deviceName} has no channel played as an EEG electrode (its channels: ${labels || 'none'}); name them with 10-20 labels or map them to electrodes.`,
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

  /** The electrodes the amplifier's channels are played as, in its column order. */
  mappedElectrodes(): readonly Electrode[] {
    return this.defaults.channels;
  }

  /** Why the source's rate is reported now (rate-guard.ts), or undefined. */
  rateMismatch(): string | undefined {
    return this.guard.problem();
  }

  acquiredChannels(): readonly Electrode[] {
    return this.run?.electrodes ?? this.current.channels;
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
    const electrodes = Object.freeze([...config.channels]);
    return {
      config,
      electrodes,
      framer: new LiveFramer({
        rate: config.samplingFrequency,
        columns: electrodes.map((e) => this.columns.get(e) as number),
        channelNames: Object.freeze(electrodes.map(channelName)),
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
      channels: change.channels === undefined ? this.current.channels : this.mappedOrThrow(change.channels),
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

  private mappedOrThrow(names: readonly string[]): Electrode[] {
    const electrodes = eegChannelListOrThrow(names);
    const unmapped = electrodes.filter((e) => !this.columns.has(e));
    if (unmapped.length > 0) {
      const mapped = [...this.columns.keys()];
      const value = names.find((name) => parseElectrode(name) === unmapped[0]);
      throw new DeviceArgumentError(
        `${this.hooks.deviceName} has no channel played as ${unmapped.join(', ')}; its channels are played as ${mapped.join(', ')}.`,
        { field: 'channels', value, allowed: mapped },
      );
    }
    return electrodes;
  }
}
