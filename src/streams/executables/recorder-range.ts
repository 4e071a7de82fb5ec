/**
 * The recorder's physical-range rule (docs/recording.md §Physical range): the limits an EDF/BDF
 * segment is opened with, from the recorder's `physicalRange` setting or what the first frame says
 * of its samples:
 * 1. `physicalRange` set: ∓ that, in either format; samples beyond it are clipped (counted,
 *    annotated, reported: ./recorder-clipping.ts).
 * 2. EDF, samples without DC (a filter upstream removed it: the frame's `highpass`) whose `range`
 *    is wider than {@link EDF_DC_FREE_LIMITS}, or unknown: those limits, 0.1 µV per step. The
 *    bound `range` is a worst case (a full-scale step through the filter) that EEG never comes near;
 *    spent on 16 bits it left 18 µV steps.
 * 3. Otherwise ∓ the frames' `range` rounded up to 4 significant digits, so no sample can clip; a
 *    frame without `range` gets {@link DEFAULT_PHYSICAL_RANGE_UV}, and samples beyond it are
 *    clipped. BDF always follows this rule unless `physicalRange` is set: its 24 bits give 0.07 µV
 *    steps even at ±590 400 µV.
 *
 * These rules are for channels in µV (a frame's `range` and the recorder's `physicalRange` are in
 * µV). A channel in another unit (core/frame.ts `units`) gets ∓ the recorder's `unitRanges` entry
 * for its unit, else ∓ the frame's `range` when every channel of the frame is in that unit (a node
 * that derives one quantity), else ∓ {@link UNIT_FULL_SCALES}' entry, else ∓
 * {@link DEFAULT_PHYSICAL_RANGE_UV} in its unit.
 */
import type { RecordingFormat } from '../../recordings/sidecar.js';

/**
 * µV: the headset's full scale at its default gain 24 (4.5 V / 24): a source of unknown range
 * that behaves like the headset never clips.
 */
export const DEFAULT_PHYSICAL_RANGE_UV = 187_500;

/**
 * µV: an EDF's limits for samples without DC: ±3276.7, over the digital −32767 to 32767; the
 * header's physical minimum is then −3276.8 at the digital minimum, which is reserved for "no value"
 * (formats/edf-writer-header.ts), so one step is exactly 0.1 µV and digital 0 is 0 µV. Filtered
 * EEG, blinks and most movement artefacts stay well inside; what goes beyond is clipped and
 * reported.
 */
export const EDF_DC_FREE_LIMITS = { min: -3276.7, max: 3276.7 } as const;

/** A segment's physical limits and why they were chosen (for the node's log). */
export interface PhysicalLimits {
  min: number;
  max: number;
  why: string;
}

/** Rounds a positive number up to 4 significant digits (187 500 → 187 500, 3.14159 → 3.142). */
export function tidyUp(value: number): number {
  let tidy = Number(value.toPrecision(4));
  if (tidy < value) {
    const unit = 10 ** (Math.floor(Math.log10(value)) - 3);
    tidy = Number((tidy + unit).toPrecision(4));
  }
  return tidy;
}

/** The physical maximum (the minimum is its negative) for frames of this `range` (rule 3). */
export function physicalMaxFor(range: number | undefined): number {
  if (range === undefined || !Number.isFinite(range) || range < 0) return DEFAULT_PHYSICAL_RANGE_UV;
  // A source that can only produce 0 still needs a non-empty range (EDF: pmin ≠ pmax).
  return range === 0 ? 1 : tidyUp(range);
}

/** The limits of a segment of `format` opened on `frame` (see the file comment). */
export function physicalLimitsFor(
  format: RecordingFormat,
  frame: { readonly range?: number | undefined; readonly highpass?: number | undefined },
  physicalRange?: number,
): PhysicalLimits {
  if (physicalRange !== undefined) {
    return { min: -physicalRange, max: physicalRange, why: 'physicalRange' };
  }
  const bound = physicalMaxFor(frame.range);
  if (format === 'edf' && frame.highpass !== undefined && bound > EDF_DC_FREE_LIMITS.max) {
    return {
      ...EDF_DC_FREE_LIMITS,
      why: `0.1 uV steps for samples without DC (high-pass at ${frame.highpass} Hz upstream)`,
    };
  }
  const known = frame.range !== undefined && Number.isFinite(frame.range) && frame.range >= 0;
  return { min: -bound, max: bound, why: known ? 'range' : 'unknown range: default' };
}

/**
 * The physical full scale of a channel in a unit other than µV, when nothing says more: what the
 * quantity can reach in practice, so that EDF's 16 bits still resolve it (an accelerometer's
 * largest range is ±16 g; a dimensionless ratio or score rarely exceeds 100; power of EEG in µV²
 * and its decibels).
 */
export const UNIT_FULL_SCALES: Readonly<Record<string, number>> = {
  g: 16,
  'm/s²': 160,
  'm/s^2': 160,
  'm/s2': 160,
  '1': 100,
  '%': 100,
  dB: 300,
  'µV²': 10_000_000,
  'μV²': 10_000_000,
  uV2: 10_000_000,
  'µV²/Hz': 10_000_000,
};

/** The limits of a channel in `unit` (not µV) for a segment opened on `frame` (see the file comment). */
export function unitLimitsFor(
  unit: string,
  frame: { readonly range?: number | undefined; readonly units?: readonly string[] | undefined },
  unitRanges?: Readonly<Record<string, number>>,
): PhysicalLimits {
  const set = unitRanges?.[unit];
  if (set !== undefined) return { min: -set, max: set, why: `unitRanges ${unit}` };
  const uniform = frame.units !== undefined && frame.units.every((u) => u === unit);
  if (uniform && frame.range !== undefined && Number.isFinite(frame.range) && frame.range >= 0) {
    const bound = physicalMaxFor(frame.range);
    return { min: -bound, max: bound, why: 'range' };
  }
  const scale = UNIT_FULL_SCALES[unit] ?? DEFAULT_PHYSICAL_RANGE_UV;
  return {
    min: -scale,
    max: scale,
    why: unit in UNIT_FULL_SCALES ? `full scale of ${unit}` : 'unknown range: default',
  };
}
