/**
 * The SSVEP scores of one window (streams/executables/ssvep.ts computes the windows): per candidate
 * frequency, the first canonical correlation (./cca.ts) between the window's channels and the
 * frequency's sine/cosine reference, plain (`cca`, Lin et al. 2006) or over a filter bank
 * (`fbcca`, Chen et al. 2015).
 *
 * Filter bank (FBCCA): sub-band n = 1..N is the band-pass `butter(4, [8n − 2, upper], 'bandpass')`
 * in second-order sections (dsp/design.ts, equal to scipy's), upper = min(90 Hz, 0.8 × Nyquist):
 * the pass-band edges of the authors' published filter bank ([8n − 2, 90] Hz, the M3 design of the
 * paper: sub-bands starting every 8 Hz, all sharing the upper edge). Their filters are zero-phase
 * Chebyshev type I run forward and backward over each finished trial; a streaming detector cannot
 * look ahead, so here each sub-band is a causal Butterworth run continuously over the stream
 * (state kept from window to window, so no window has a filter's start-up transient). CCA is blind
 * to the filter's phase (it fits sine and cosine), so only the magnitude response matters. A
 * sub-band whose lower edge is not below `upper` is left out.
 *
 * Combination: ρ̃_k = Σₙ w(n) (ρ_k⁽ⁿ⁾)² with w(n) = n^(−a) + b, a = 1.25, b = 0.25 (the paper's
 * weights), divided by Σₙ w(n) so that the score is a weighted mean of squared correlations in
 * [0, 1] whatever N is (the division changes no ranking).
 */
import { centredBasis, firstCanonicalCorrelation, sineCosineReference } from './cca.js';
import { designFilter } from './design.js';
import type { Sos } from './sos.js';

export type SsvepMethod = 'cca' | 'fbcca';

/** Chen et al. 2015's sub-band weights w(n) = n^(−a) + b. */
export const FBCCA_A = 1.25;
export const FBCCA_B = 0.25;
/** Sub-band n starts at 8n − 2 Hz and all end at min(FBCCA_UPPER, 0.8 × Nyquist). */
export const FBCCA_UPPER = 90;
export const FBCCA_ORDER = 4;

export interface SubBand {
  /** 1-based index n. */
  readonly n: number;
  readonly low: number;
  readonly high: number;
  readonly weight: number;
  readonly sos: Sos;
}

/** The FBCCA sub-bands usable at `sampleRate` among the first `count` (see the file comment). */
export function fbccaSubBands(count: number, sampleRate: number): SubBand[] {
  const high = Math.min(FBCCA_UPPER, 0.8 * (sampleRate / 2));
  const bands: SubBand[] = [];
  for (let n = 1; n <= count; n++) {
    const low = 8 * n - 2;
    if (low >= high) break;
    bands.push({
      n,
      low,
      high,
      weight: n ** -FBCCA_A + FBCCA_B,
      sos: designFilter({ highpass: low, lowpass: high, order: FBCCA_ORDER }, sampleRate),
    });
  }
  return bands;
}

/**
 * Scores windows of `length` samples at `sampleRate` against `frequencies`. The references'
 * orthonormal bases are made once: a window's reference is the same whatever its start (CCA fits
 * any phase), so only the EEG side is decomposed per window.
 */
export class SsvepScorer {
  private readonly references: Float64Array[][];

  constructor(
    readonly frequencies: readonly number[],
    harmonics: number,
    sampleRate: number,
    readonly length: number,
  ) {
    this.references = frequencies.map((f) =>
      centredBasis(sineCosineReference(f, harmonics, sampleRate, length)),
    );
  }

  /** First canonical correlation of each frequency for one window, channels as columns. */
  correlations(columns: readonly Float64Array[]): Float64Array {
    const basis = centredBasis(columns);
    const out = new Float64Array(this.frequencies.length);
    this.references.forEach((reference, k) => {
      out[k] = firstCanonicalCorrelation(basis, reference);
    });
    return out;
  }

  /** FBCCA: the weighted mean of squared correlations over sub-bands (columns per sub-band). */
  filterBankScores(bands: readonly (readonly Float64Array[])[], weights: readonly number[]): Float64Array {
    const out = new Float64Array(this.frequencies.length);
    let total = 0;
    bands.forEach((columns, b) => {
      const w = weights[b] as number;
      total += w;
      const rho = this.correlations(columns);
      for (let k = 0; k < out.length; k++) out[k] = (out[k] as number) + w * (rho[k] as number) ** 2;
    });
    for (let k = 0; k < out.length; k++) out[k] = (out[k] as number) / total;
    return out;
  }
}
