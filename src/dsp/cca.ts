/**
 * Canonical correlation analysis (CCA) between a window of EEG channels and a set of reference
 * signals, in float64: the first canonical correlation of the SSVEP detector (streams/executables/ssvep.ts).
 *
 * Method (Björck & Golub 1973): centre every column, take an orthonormal basis of each column
 * space (QR by modified Gram–Schmidt, each column orthogonalised twice, "twice is enough", so Q is
 * orthonormal to rounding even for nearly dependent channels), then the canonical correlations are
 * the singular values of Qxᵀ Qy. The largest is √λmax of the small Gram matrix (Qxᵀ Qy)ᵀ(Qxᵀ Qy)
 * (or its transpose, whichever is smaller), whose eigenvalues come from cyclic Jacobi rotations.
 * This is the whitening of the covariances done without forming them: Qx = X Rx⁻¹ is X whitened
 * (Qxᵀ Qx = I), so Qxᵀ Qy = Cxx^(−½) Cxy Cyy^(−½) up to orthogonal factors that leave the singular
 * values alone. Columns that are linear combinations of earlier ones (a channel duplicated, a
 * reference harmonic exactly at Nyquist) add nothing to the column space and are dropped; a column
 * of zeros likewise. A side with no column left has correlation 0.
 */

/** A column counts as dependent on the earlier ones when orthogonalising leaves this fraction of its norm. */
const DEPENDENT = 1e-10;

/**
 * An orthonormal basis (columns, each of length n) of the span of the centred `columns`: the Q of
 * the thin QR of the centred matrix, without its dependent columns.
 */
export function centredBasis(columns: readonly Float64Array[]): Float64Array[] {
  const basis: Float64Array[] = [];
  for (const column of columns) {
    const n = column.length;
    const v = new Float64Array(n);
    let mean = 0;
    for (let i = 0; i < n; i++) mean += column[i] as number;
    mean /= n;
    let norm0 = 0;
    for (let i = 0; i < n; i++) {
      const x = (column[i] as number) - mean;
      v[i] = x;
      norm0 += x * x;
    }
    norm0 = Math.sqrt(norm0);
    if (!(norm0 > 0) || !Number.isFinite(norm0)) continue;
    for (let pass = 0; pass < 2; pass++) {
      for (const q of basis) {
        let dot = 0;
        for (let i = 0; i < n; i++) dot += (q[i] as number) * (v[i] as number);
        for (let i = 0; i < n; i++) v[i] = (v[i] as number) - dot * (q[i] as number);
      }
    }
    let norm = 0;
    for (let i = 0; i < n; i++) norm += (v[i] as number) * (v[i] as number);
    norm = Math.sqrt(norm);
    if (norm <= DEPENDENT * norm0) continue;
    for (let i = 0; i < n; i++) v[i] = (v[i] as number) / norm;
    basis.push(v);
  }
  return basis;
}

/** Eigenvalues of a symmetric k×k matrix (row-major, overwritten) by cyclic Jacobi rotations. */
export function symmetricEigenvalues(a: Float64Array, k: number): Float64Array {
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    let total = 0;
    for (let i = 0; i < k; i++) {
      for (let j = 0; j < k; j++) {
        const x = (a[i * k + j] as number) ** 2;
        total += x;
        if (i !== j) off += x;
      }
    }
    if (off <= 1e-30 * total || off === 0) break;
    for (let p = 0; p < k - 1; p++) {
      for (let q = p + 1; q < k; q++) {
        const apq = a[p * k + q] as number;
        if (apq === 0) continue;
        const app = a[p * k + p] as number;
        const aqq = a[q * k + q] as number;
        // The rotation that zeroes a[p][q] (Golub & Van Loan, Algorithm 8.4.1).
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let r = 0; r < k; r++) {
          const arp = a[r * k + p] as number;
          const arq = a[r * k + q] as number;
          a[r * k + p] = c * arp - s * arq;
          a[r * k + q] = s * arp + c * arq;
        }
        for (let r = 0; r < k; r++) {
          const apr = a[p * k + r] as number;
          const aqr = a[q * k + r] as number;
          a[p * k + r] = c * apr - s * aqr;
          a[q * k + r] = s * apr + c * aqr;
        }
      }
    }
  }
  const values = new Float64Array(k);
  for (let i = 0; i < k; i++) values[i] = a[i * k + i] as number;
  return values;
}

/**
 * The first (largest) canonical correlation between two orthonormal bases of centred column
 * spaces (from {@link centredBasis}): the largest singular value of Qxᵀ Qy, in [0, 1].
 */
export function firstCanonicalCorrelation(qx: readonly Float64Array[], qy: readonly Float64Array[]): number {
  const r = qx.length;
  const s = qy.length;
  if (r === 0 || s === 0) return 0;
  const m = new Float64Array(r * s);
  for (let i = 0; i < r; i++) {
    const x = qx[i] as Float64Array;
    for (let j = 0; j < s; j++) {
      const y = qy[j] as Float64Array;
      let dot = 0;
      for (let t = 0; t < x.length; t++) dot += (x[t] as number) * (y[t] as number);
      m[i * s + j] = dot;
    }
  }
  // Gram matrix on the smaller side: MᵀM (s×s) or MMᵀ (r×r); same non-zero eigenvalues σ².
  const k = Math.min(r, s);
  const gram = new Float64Array(k * k);
  for (let a = 0; a < k; a++) {
    for (let b = a; b < k; b++) {
      let sum = 0;
      if (s <= r) for (let i = 0; i < r; i++) sum += (m[i * s + a] as number) * (m[i * s + b] as number);
      else for (let j = 0; j < s; j++) sum += (m[a * s + j] as number) * (m[b * s + j] as number);
      gram[a * k + b] = sum;
      gram[b * k + a] = sum;
    }
  }
  let largest = 0;
  for (const value of symmetricEigenvalues(gram, k)) largest = Math.max(largest, value);
  return Math.min(1, Math.sqrt(largest));
}

/**
 * The SSVEP reference of one frequency over a window of n samples at `sampleRate`: sin and cos of
 * 2π·h·f·t for h = 1..harmonics, t = i / sampleRate; harmonics at or above Nyquist are left out.
 */
export function sineCosineReference(
  frequency: number,
  harmonics: number,
  sampleRate: number,
  n: number,
): Float64Array[] {
  const columns: Float64Array[] = [];
  for (let h = 1; h <= harmonics; h++) {
    if (h * frequency >= sampleRate / 2) break;
    const sin = new Float64Array(n);
    const cos = new Float64Array(n);
    const step = (2 * Math.PI * h * frequency) / sampleRate;
    for (let i = 0; i < n; i++) {
      sin[i] = Math.sin(step * i);
      cos[i] = Math.cos(step * i);
    }
    columns.push(sin, cos);
  }
  return columns;
}
