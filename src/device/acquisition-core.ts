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
 * ends (`end`: what is due or held back leaves first), and hands its frames to `deliver`. A source
 * whose frames are produced in another thread (production/device-thread.ts) hands here only those
 * a listener on this thread wants (`emit`, told by `framesWanted`), keeps the count in that thread
 * (`producedSamples`), writes the frames to the stream workers' ports itself (`framePort`) and may
 * end a run asynchronously.
 */
import type { Frame } from '../core/frame.js';
import { framePortOf } from '../core/frame-wire.js';
import type { FramePort } from '../core/node.js';
import type { StreamThread } from '../core/stream-thread.js';
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
  /** A run ended because its source failed (`failed`), after `samples`. */
  onFailed?: (samples: number, error: Error) => void;
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
  /** The run ends: what is due or held back leaves as frames first (before the promise resolves). */
  protected abstract end(): void | Promise<void>;
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
    this.refreshCount();
    return this.owners.state(this.running, this.current);
  }

  onFrame(listener: (frame: Frame) => void): Unsubscribe {
    const unsubscribe = this.listeners.add(listener);
    if (this.listeners.size === 1) this.framesWanted(true);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      unsubscribe();
      if (this.listeners.size === 0) this.framesWanted(false);
    };
  }

  /**
   * A port this thread writes every frame to, until it is closed. A source producing in another
   * thread opens the port there instead, so that the frames do not pass through this one.
   */
  framePort(): FramePort {
    return framePortOf((listener) => this.onFrame(listener));
  }

  /** The thread that produces the frames, when another one does and may host streams (none here). */
  streamThread(): StreamThread | undefined {
    return undefined;
  }

  /**
   * Stops for good: what is held back leaves, then no frame after this; resolves once the run's end
   * is reported.
   */
  close(): Promise<void> {
    this.owners.close();
    const ended = this.finish();
    this.listeners.clear();
    this.framesWanted(false);
    return ended ?? Promise.resolve();
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

  /** Hands a frame to every listener, its samples counted elsewhere (see `producedSamples`). */
  protected emit(frame: Frame): void {
    this.listeners.emit(frame);
  }

  /** Whether any listener on this thread wants frames; told when that changes. */
  protected framesWanted(_wanted: boolean): void {
    // A source producing on this thread delivers to whoever listens.
  }

  /** The run's sample count, where a source keeps it itself; undefined: counted by `deliver`. */
  protected producedSamples(): number | undefined {
    return undefined;
  }

  /**
   * The run ended because its source failed: nobody holds acquisition any more, and the stop is
   * reported as a failure. The source has ended its run itself.
   */
  protected failed(error: Error): void {
    if (!this.running) return;
    this.owners.reset(true, true);
    this.running = false;
    this.runs++;
    this.coreHooks.onFailed?.(this.sampleCount(), error);
  }

  private async halt(): Promise<void> {
    if (!this.running) return;
    const run = this.runs;
    try {
      await this.unpower();
    } finally {
      // close() may have ended the run meanwhile (it delivered and reported it).
      if (this.runs === run) await this.finish();
    }
  }

  /**
   * Ends the run now, if one goes on: its last frames leave, and the stop is reported (once they
   * have left, for a source that ends asynchronously).
   */
  private finish(): void | Promise<void> {
    if (!this.running) return;
    const ended = this.end();
    this.running = false;
    this.runs++;
    const report = (): void => {
      this.coreHooks.onStopped(this.sampleCount());
    };
    if (ended === undefined) report();
    else return ended.then(report);
  }

  private sampleCount(): number {
    this.refreshCount();
    return this.owners.sampleCount();
  }

  private refreshCount(): void {
    const produced = this.producedSamples();
    if (produced !== undefined) this.owners.setCount(produced);
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
