/**
 * What an EEG signal comes from, below the ADC: the simulated physiology, a replayed file, or
 * (one day) nothing, when the hardware's ADC delivers samples itself. The acquisition engine
 * (acquisition.ts) paces, frames, quantises and delivers; a source only fills blocks of samples.
 */
import type { Electrode } from '../core/electrodes.js';
import type { UnplayedChannel } from './channels.js';
import type { ReplayMarker } from './replay/replay-marker.js';

export interface SignalContext {
  /** Monotonic time (ms) of the block's first sample. */
  readonly time: number;
  /** The electrode's true impedance (Ω) at that time, from the contact model. */
  impedance(electrode: Electrode): number;
}

export interface EegSignalSource {
  /**
   * The EEG electrodes this source can deliver (a replayed file's channels); all when absent.
   * Configured channels outside it are left out of the frames.
   */
  readonly available?: readonly Electrode[];
  /** The signals the source has but does not play as an electrode (a file's EOG), with the reason. */
  readonly unplayed?: readonly UnplayedChannel[];
  /**
   * The rate (Hz) at which the source's samples are its own (a replayed file's rate): the
   * acquisition's default rate, accepted besides the standard ones. Absent: the standard default.
   */
  readonly nativeRate?: number;
  /**
   * True when the samples are recorded values (a replayed file): the acquisition delivers them as
   * they are, without the ADC's quantisation and clipping at the gain.
   */
  readonly recorded?: boolean;
  /**
   * Prepares a run at `sampleRate` (Hz) for `channels` (configured EEG electrodes that the source
   * has, in column order). Called at every start of acquisition and every configuration change.
   */
  begin(sampleRate: number, channels: readonly Electrode[]): void;
  /**
   * Writes `count` sample rows (µV at the electrode, before the ADC) into `out`, row-major with
   * one column per channel of `begin`. Returns true when the block does not continue the previous
   * one (a replay that looped to its start).
   */
  fill(out: Float32Array, count: number, context: SignalContext): boolean;
  /**
   * The markers the last `fill` passed (a replayed file's annotations and trigger codes), each with
   * its row in that block; each is taken once.
   */
  takeMarkers?(): readonly SourceMarker[];
}

/** A marker a block of samples passed, at its row in the block. */
export interface SourceMarker {
  readonly row: number;
  readonly marker: ReplayMarker;
}
