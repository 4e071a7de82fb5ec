/**
 * Where a live amplifier's frames are made: beside its driver, in whichever thread holds the
 * driver (the device's thread in the service, production/thread-live.ts; the acquisition's own
 * thread otherwise, live-acquisition.ts). It takes every block the driver pushes, passes it
 * through the rate guard (rate-guard.ts) and cuts it into frames (live-framer.ts) for the run
 * going on. What a run is made of comes as plain data (`LiveRunPlan`), so that the acquisition's
 * control (acquisition-core.ts: owners, configuration, when a run begins and ends) can stay on the
 * main thread while the samples never pass through it.
 */
import type { Frame } from '../../core/frame.js';
import type { Unsubscribe } from '../../core/listener-set.js';
import type { LiveEegDriver, LiveSamples } from './driver.js';
import { LiveFramer } from './live-framer.js';
import { RateGuard, type RateVerdict } from './rate-guard.js';

/** A run of a live acquisition, as the thread that frames it needs it: plain data. */
export interface LiveRunPlan {
  /** Hz, the amplifier's rate. */
  readonly rate: number;
  /** Columns of the driver's blocks to keep, in the frames' order. */
  readonly columns: readonly number[];
  /** The frames' channel names, one per kept column. */
  readonly channels: readonly string[];
  /** The frames' units, one per kept column; absent when all are µV. */
  readonly units?: readonly string[];
}

export interface LiveProductionHooks {
  /** A frame of the run, of `rows` samples per channel. */
  frame(frame: Frame, rows: number): void;
  /** A block said rows were lost before it (never filled in). */
  rowsLost(rows: number): void;
  /** The rate guard's verdict changed. */
  rate(verdict: RateVerdict): void;
  /** The next frame's `seq` (counted over the device's life). */
  nextSeq(): number;
  /** Wall-clock ms now: when a block arrived. */
  wallNow(): number;
}

export class LiveProduction {
  private framer: LiveFramer | undefined;
  private plan: LiveRunPlan | undefined;
  private readonly guard: RateGuard;
  private readonly unsubscribe: Unsubscribe;

  constructor(
    private readonly driver: LiveEegDriver,
    /** The device in words, for the rate guard's messages. */
    deviceName: string,
    private readonly hooks: LiveProductionHooks,
  ) {
    this.guard = new RateGuard(driver.sampleRate(), deviceName);
    this.unsubscribe = driver.onSamples((block) => {
      this.take(block);
    });
  }

  /** Why the source's rate is reported now (rate-guard.ts), or undefined. */
  rateProblem(): string | undefined {
    return this.guard.problem();
  }

  /** A run begins: frames follow. */
  begin(plan: LiveRunPlan): void {
    this.guard.restart(plan.rate);
    this.start(plan);
  }

  /** The configuration changed while the run goes on: the next frame says `discontinuity`. */
  change(plan: LiveRunPlan): void {
    this.framer?.flush();
    this.start(plan);
  }

  /** The run ends: the rows held back leave as a shorter frame. */
  end(): void {
    const plan = this.plan;
    if (plan === undefined) return;
    this.framer?.flush();
    this.framer = undefined;
    this.plan = undefined;
    this.guard.restart(plan.rate);
  }

  /** No block is taken any more. */
  close(): void {
    this.unsubscribe();
  }

  private start(plan: LiveRunPlan): void {
    this.plan = plan;
    this.framer = new LiveFramer({
      rate: plan.rate,
      columns: plan.columns,
      channelNames: plan.channels,
      units: plan.units,
      width: this.driver.channels().length,
      range: () => this.driver.range(),
      nextSeq: () => this.hooks.nextSeq(),
      stamp: (proposed) => this.guard.stamp(proposed),
      emit: (frame) => {
        this.hooks.frame(frame, frame.data.length / frame.channels.length);
      },
    });
  }

  private take(block: LiveSamples): void {
    const framer = this.framer;
    if (framer === undefined) return;
    if (block.lost > 0) this.hooks.rowsLost(block.lost);
    const verdict = this.guard.observe(block, this.hooks.wallNow());
    if (verdict !== undefined) {
      framer.annotate(verdict.message);
      this.hooks.rate(verdict);
    }
    framer.push(block);
  }
}
