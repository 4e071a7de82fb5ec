/**
 * The recorder's physical-range rule (docs/recording.md §Physical range): the file's physical
 * minimum and maximum are ∓ the frames' `range` rounded up to 4 significant digits, so no sample
 * can clip; a frame without `range` gets {@link DEFAULT_PHYSICAL_RANGE_UV}, and samples beyond it
 * are clipped and counted.
 */

/**
 * µV: the headset's full scale at its default gain 24 (4.5 V / 24): a source of unknown range
 * that behaves like the headset never clips.
 */
export const DEFAULT_PHYSICAL_RANGE_UV = 187_500;

/** Rounds a positive number up to 4 significant digits (187 500 → 187 500, 3.14159 → 3.142). */
export function tidyUp(value: number): number {
  let tidy = Number(value.toPrecision(4));
  if (tidy < value) {
    const unit = 10 ** (Math.floor(Math.log10(value)) - 3);
    tidy = Number((tidy + unit).toPrecision(4));
  }
  return tidy;
}

/** The physical maximum (the minimum is its negative) for frames of this `range`. */
export function physicalMaxFor(range: number | undefined): number {
  if (range === undefined || !Number.isFinite(range) || range < 0) return DEFAULT_PHYSICAL_RANGE_UV;
  // A source that can only produce 0 still needs a non-empty range (EDF: pmin ≠ pmax).
  return range === 0 ? 1 : tidyUp(range);
}
