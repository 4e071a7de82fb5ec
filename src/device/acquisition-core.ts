/**
 * The one EEG acquisition every device runs: who holds it (owners, acquisition-owners.ts), the
 * operations one after another, configuration and its rules, when a run begins and ends, frame
 * numbering and delivery, and `state()`. Where the samples come from is a source's, in one of two
 * ways:
 * - pulled (acquisition.ts): the simulated and replay devices make samples in software, on a timer
 *   of the device clock;
 * - pushed (live/live-acquisition.ts): a live amplifier delivers blocks when its own clock says
 *   so, and its hardware is started and stopped (`power`, `unpower`) around each run.
 * A source says how a run begins (`begin`), changes configuration while it runs (`change`) and
 * ends (`end`: what is due or held back leaves first), and hands its frames to `deliver`.
 */
import type { Frame } from '../core/frame.js';
import { AcquisitionOwners, type AcquisitionOwnersHooks, sameEegConfig } from './acquisition-owners.js';
import type { DeviceChannel, UnplayedChannel } from './channels.js';
import { ListenerSet, type Unsubscribe } from './events.js';
import type {
  AcquisitionOwner,
  AcquisitionState,
  EegAcquisition,
  EegConfig,
  EegConfigChange,
} from './headset.js';

export interface AcquisitionCoreHooks extends AcquisitionOwnersHooks {
  onStarted(config: EegConfig): void;
  onStopped(samples: number): void;
  onListenerError?: (error: unknown) => void;
}

export abstract class AcquisitionCore<C extends EegConfig> implements EegAcquisition {
  protected current: C;
  private readonly owners: AcquisitionOwners;
  private readonly listeners: ListenerSet<Frame>;
  private running = false;
  /** Counts runs, so that the end of one that close() already ended is not reported twice. */
  private runs = 0;
  private seq = 0;
  /** The operations in flight, one after another (a start waits for a configuration being applied). */
  private queue: Promise<unknown> = Promise.resolve();

  protected constructor(
    /** The configuration a reset restores. */
    protected readonly defaults: C,
    private readonly coreHooks: AcquisitionCoreHooks,
  ) {
    this.listeners = new ListenerSet<Frame>(coreHooks.onListenerError);
    this.owners = new AcquisitionOwners(coreHooks);
    this.current = defaults;
  }

  // --- what a source supplies -----------------------------------------------------------------

  /** `change` over the present configuration, or `validation_failed`. */
  protected abstract validated(change: EegConfigChange): C;
  /** A run of `config` begins now: frames follow. */
  protected abstract begin(config: C): void;
  /** The configuration changes while a run goes on: the next frame says `discontinuity`. */
  protected abstract change(config: C): void;
  /** The run ends: what is due or held back leaves as frames first. */
  protected abstract end(): void;
  /** The configuration a start asks for (`initial`): as a configuration change, unless the source says otherwise. */
  protected initial(change: EegConfigChange): C {
    return this.validated(change);
  }
  /** Applies a configuration to the hardware before it is used (a live amplifier's gain). */
  protected async apply(_config: C): Promise<void> {
    // A software source has nothing to apply.
  }
  /** Starts the hardware before a run (a live amplifier's start command). */
  protected async power(): Promise<void> {
    // A software source has nothing to start.
  }
  /** Stops the hardware after a run; what it still delivers meanwhile is framed. */
  protected async unpower(): Promise<void> {
    // A software source has nothing to stop.
  }
  abstract acquiredChannels(): readonly string[];
  abstract channels(): readonly DeviceChannel[];
  abstract unplayedChannels(): readonly UnplayedChannel[];
  abstract channelList(names: readonly string[], field?: string): string[];

  // --- the acquisition ------------------------------------------------------------------------

  config(): EegConfig {
    return this.current;
  }

  configure(change: EegConfigChange): Promise<EegConfig> {
    return this.serial(async () => {
      const next = this.validated(change);
      if (sameEegConfig(next, this.current)) return this.current;
      await this.apply(next);
      this.current = next;
      if (this.running) this.change(next);
      return this.current;
    });
  }

  reset(options?: { readonly force?: boolean }): Promise<EegConfig> {
    return this.serial(async () => {
      this.owners.reset(this.running, options?.force);
      await this.halt();
      await this.apply(this.defaults);
      this.current = this.defaults;
      return this.current;
    });
  }

  start(owner: AcquisitionOwner, initial?: EegConfigChange): Promise<AcquisitionState> {
    return this.serial(async () => {
      if (this.owners.join(owner, this.running)) return this.state();
      if (initial !== undefined) {
        const next = this.initial(initial);
        await this.apply(next);
        this.current = next;
      }
      await this.power();
      if (this.owners.isClosed()) {
        // Closed while the hardware was starting: nothing may flow after a close.
        await this.unpower();
        this.owners.assertOpen();
      }
      this.owners.started(owner);
      this.running = true;
      this.runs++;
      this.begin(this.current);
      this.coreHooks.onStarted(this.current);
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
    return this.owners.state(this.running, this.current);
  }

  onFrame(listener: (frame: Frame) => void): Unsubscribe {
    return this.listeners.add(listener);
  }

  /** Stops for good: what is held back leaves, then no frame after this. */
  close(): void {
    this.owners.close();
    this.finish();
    this.listeners.clear();
  }

  // --- for the sources ------------------------------------------------------------------------

  /** Whether a run goes on. */
  protected isRunning(): boolean {
    return this.running;
  }

  /** The `seq` of the next frame: increasing over the device's life. */
  protected nextSeq(): number {
    return this.seq++;
  }

  /** Hands a frame of the run, of `rows` samples per channel, to every listener, counting them. */
  protected deliver(frame: Frame, rows: number): void {
    this.owners.count(rows);
    this.listeners.emit(frame);
  }

  private async halt(): Promise<void> {
    if (!this.running) return;
    const run = this.runs;
    try {
      await this.unpower();
    } finally {
      // close() may have ended the run meanwhile (it delivered and reported it).
      if (this.runs === run) this.finish();
    }
  }

  /** Ends the run now, if one goes on: its last frames leave, and the stop is reported. */
  private finish(): void {
    if (!this.running) return;
    this.end();
    this.running = false;
    this.runs++;
    this.coreHooks.onStopped(this.owners.sampleCount());
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
