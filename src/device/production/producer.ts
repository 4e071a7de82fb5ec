/**
 * The pulled production of EEG frames, for every device that makes its samples in software
 * (simulated, replay): real-time pacing, ~10 ms framing, and the 24-bit ADC's quantisation and
 * clipping, over an `EegSignalSource` that fills blocks of samples. The same code runs in the
 * thread that produces the device's frames: the device's own thread in the service
 * (device-thread.ts), or the thread of the acquisition itself (tests on a moved clock).
 *
 * Pacing: at every tick the producer emits the frames whose last sample is due (sample k at the
 * run's start + k / rate on the monotonic clock, the instant it is taken: core/sample-clock.ts,
 * as the signal-generator node paces), so the number of samples follows elapsed time exactly
 * however late the timers fire (a late timer yields several frames at once). Frames have a fixed
 * number of rows per run (`frameRows`), which also makes the samples independent of timer jitter.
 */
import type { Frame } from '../../core/frame.js';
import { channelName, type Electrode } from '../../core/electrodes.js';
import { wallNowMs } from '../../core/wall-clock.js';
import { sampleInstant, samplesDue } from '../../core/sample-clock.js';
import { adcFullScaleMicrovolts, frameRows, quantise } from '../adc.js';
import type { DeviceClock, TimerHandle } from '../clock.js';
import type { EegConfig } from '../headset.js';
import type { ReplayMarker } from '../replay/replay-marker.js';
import type { EegSignalSource } from '../signal-source.js';

/** A run as the acquisition begins it: on the acquisition's clock, which the producer's reads too. */
export interface RunPlan {
  /** Which run of the device this is (a failure names the run it ended). */
  readonly id: number;
  readonly config: EegConfig;
  /** The electrodes acquired (configured ones the source has), in column order. */
  readonly electrodes: readonly Electrode[];
  /** When the run began (monotonic ms) and the wall-clock time of that instant. */
  readonly startedAt: number;
  readonly startedAtWall: number;
}

/** A marker the source passed, at the time of its sample. */
export interface PlayedMarker {
  readonly timestamp: number;
  readonly marker: ReplayMarker;
}

export interface ProducerOutput {
  /** A frame of `rows` samples per channel. */
  frame(frame: Frame, rows: number): void;
  /** Markers the frame's samples passed, before the frame itself. */
  markers(markers: readonly PlayedMarker[]): void;
  /** The source threw while the run `plan` went on (a file that can no longer be read): it is over. */
  failed(error: unknown, plan: RunPlan): void;
}

interface Run {
  readonly plan: RunPlan;
  readonly channelNames: readonly string[];
  readonly rows: number;
  /** Rows emitted in this run. */
  emitted: number;
  discontinuity: boolean;
  timer: TimerHandle | undefined;
}

export class FrameProducer {
  private run: Run | undefined;

  constructor(
    private readonly clock: DeviceClock,
    private readonly source: EegSignalSource,
    /** True impedance (Ω) of an electrode now, for the source. */
    private readonly impedance: (electrode: Electrode) => number,
    private readonly output: ProducerOutput,
    /** The `seq` of the next frame: increasing over the device's life. */
    private readonly nextSeq: () => number,
  ) {}

  begin(plan: RunPlan): void {
    this.source.begin(plan.config.samplingFrequency, plan.electrodes);
    this.run = {
      plan,
      channelNames: Object.freeze(plan.electrodes.map(channelName)),
      rows: frameRows(plan.config.samplingFrequency),
      emitted: 0,
      discontinuity: true,
      timer: undefined,
    };
    this.schedule(this.run);
  }

  /** Ends the run: the frames due by `at` (monotonic ms; now when absent) leave first. */
  end(at = this.clock.now()): void {
    const run = this.run;
    if (run === undefined) return;
    if (run.timer !== undefined) this.clock.clearTimeout(run.timer);
    try {
      this.emitDue(run, at);
    } catch (error) {
      this.output.failed(error, run.plan);
    }
    this.run = undefined;
  }

  private schedule(run: Run): void {
    // The next frame is due at its last sample's instant.
    const nextDue = sampleInstant(
      run.plan.startedAt,
      run.emitted + run.rows - 1,
      run.plan.config.samplingFrequency,
    );
    const wake = (): void => {
      run.timer = undefined;
      if (this.run !== run) return;
      try {
        this.emitDue(run, this.clock.now());
      } catch (error) {
        this.run = undefined;
        this.output.failed(error, run.plan);
        return;
      }
      if (this.run === run) this.schedule(run);
    };
    run.timer =
      this.clock.setDeadline === undefined
        ? this.clock.setTimeout(wake, Math.max(0, Math.ceil(nextDue - this.clock.now())))
        : this.clock.setDeadline(wake, nextDue);
  }

  private emitDue(run: Run, at: number): void {
    const due = samplesDue(run.plan.startedAt, at, run.plan.config.samplingFrequency);
    while (run.emitted + run.rows <= due && this.run === run) {
      this.emitFrame(run);
    }
  }

  private emitFrame(run: Run): void {
    const { plan, rows } = run;
    const { gain, samplingFrequency: rate } = plan.config;
    const data = new Float32Array(rows * run.channelNames.length);
    const offsetMs = (run.emitted * 1000) / rate;
    const gap = this.source.fill(data, rows, {
      time: plan.startedAt + offsetMs,
      impedance: this.impedance,
    });
    // Recorded values (replay) are already what an ADC gave: the gain does not touch them.
    if (this.source.recorded !== true) quantise(data, gain);
    const discontinuity = run.discontinuity || gap;
    run.discontinuity = false;
    const timestamp = plan.startedAtWall + offsetMs;
    const frame: Frame = {
      seq: this.nextSeq(),
      timestamp,
      sampleRate: rate,
      channels: run.channelNames,
      data,
      ...(discontinuity ? { discontinuity: true } : {}),
      // A recorded source's values are what some other ADC gave: their bound is not known here.
      ...(this.source.recorded === true ? {} : { range: adcFullScaleMicrovolts(gain) }),
      createdAt: wallNowMs(),
    };
    run.emitted += rows;
    const markers = this.source.takeMarkers?.() ?? [];
    if (markers.length > 0) {
      this.output.markers(
        markers.map(({ row, marker }) => ({ timestamp: timestamp + (row * 1000) / rate, marker })),
      );
    }
    this.output.frame(frame, rows);
  }
}
