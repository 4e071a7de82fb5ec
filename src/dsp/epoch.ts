/**
 * The arithmetic of epochs as MNE's `mne.Epochs(raw, events, tmin, tmax, baseline, reject)` does
 * it: the window's sample offsets, the baseline's samples, the baseline correction and the
 * peak-to-peak rejection. The node that cuts epochs out of frames is streams/executables/epoch.ts.
 */

/** Python's `round`: to the nearest integer, halves to the even one (MNE rounds tmin and tmax so). */
export function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : r;
}

/**
 * The window's first and last sample relative to the marker's (both included), as MNE's
 * `int(round(tmin × sfreq))` and `int(round(tmax × sfreq))`.
 */
export function epochOffsets(tmin: number, tmax: number, rate: number): { first: number; last: number } {
  return { first: roundHalfEven(tmin * rate), last: roundHalfEven(tmax * rate) };
}

/**
 * The rows [from, to) of an epoch of `rows` samples starting at offset `first` whose times
 * t = (first + row) / rate satisfy a ≤ t ≤ b (null: the window's edge), as MNE's `rescale`.
 * Empty when no sample lies in the interval.
 */
export function baselineRows(
  first: number,
  rows: number,
  rate: number,
  baseline: readonly [number | null, number | null],
): { from: number; to: number } {
  const [a, b] = baseline;
  let from = 0;
  let to = rows;
  if (a !== null) {
    from = rows;
    for (let i = 0; i < rows; i++) {
      if ((first + i) / rate >= a) {
        from = i;
        break;
      }
    }
  }
  if (b !== null) {
    to = 0;
    for (let i = rows - 1; i >= 0; i--) {
      if ((first + i) / rate <= b) {
        to = i + 1;
        break;
      }
    }
  }
  return { from, to: Math.max(from, to) };
}

export interface CutEpoch {
  /** Row-major samples, baseline-corrected when a baseline was given. */
  data: Float32Array;
  /** Channels whose peak-to-peak is above the threshold; empty when the epoch is kept. */
  rejectedBy: number[];
}

/**
 * Baseline-corrects `rows` × `width` row-major samples (each channel minus its mean over the rows
 * [from, to), in double precision) and finds the channels whose peak-to-peak after correction is
 * above `reject` (none when undefined), as MNE's `ptp > threshold`.
 */
export function correctEpoch(
  samples: Float32Array,
  width: number,
  baseline: { from: number; to: number } | undefined,
  reject: number | undefined,
): CutEpoch {
  const rows = width === 0 ? 0 : samples.length / width;
  const out = new Float32Array(samples.length);
  const rejectedBy: number[] = [];
  for (let c = 0; c < width; c++) {
    let offset = 0;
    if (baseline !== undefined && baseline.to > baseline.from) {
      let sum = 0;
      for (let i = baseline.from; i < baseline.to; i++) sum += samples[i * width + c] as number;
      offset = sum / (baseline.to - baseline.from);
    }
    let low = Number.POSITIVE_INFINITY;
    let high = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < rows; i++) {
      const value = (samples[i * width + c] as number) - offset;
      out[i * width + c] = value;
      if (value < low) low = value;
      if (value > high) high = value;
    }
    if (reject !== undefined && high - low > reject) rejectedBy.push(c);
  }
  return { data: out, rejectedBy };
}
