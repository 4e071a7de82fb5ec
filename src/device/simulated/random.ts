/**
 * A small seeded PRNG (sfc32, 128-bit state) with a normal deviate, so that the simulated headset
 * is deterministic under `--seed`. Each subsystem forks its own stream by label, so that reading
 * the IMU, say, never changes the EEG samples that follow.
 */

/** Hashes a string to 32 bits (FNV-1a), used to derive independent substreams from one seed. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// Acklam's coefficients, at module level: the table below calls normalQuantile 32768 times, and
// arrays built inside the function made that 100 ms of allocation and collection.
const [A0, A1, A2, A3, A4, A5] = [
  -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
  2.506628277459239,
] as const;
const [B0, B1, B2, B3, B4] = [
  -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
] as const;
const [C0, C1, C2, C3, C4, C5] = [
  -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
] as const;
const [D0, D1, D2, D3] = [
  0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416,
] as const;

/** Acklam's rational approximation of the standard normal quantile (relative error < 1.2e-9). */
function normalQuantile(p: number): number {
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((C0 * q + C1) * q + C2) * q + C3) * q + C4) * q + C5) /
      ((((D0 * q + D1) * q + D2) * q + D3) * q + 1)
    );
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((A0 * r + A1) * r + A2) * r + A3) * r + A4) * r + A5) * q) /
    (((((B0 * r + B1) * r + B2) * r + B3) * r + B4) * r + 1)
  );
}

/**
 * 65536 equiprobable normal values (the quantiles at (i + ½) / 65536), scaled to unit variance:
 * drawing one by a 16-bit random index is a normal deviate truncated at ±4.3 σ, several times
 * cheaper than Box-Muller. Used where millions of deviates per second are needed (EEG noise).
 *
 * Filled by `prepareFastNormal` (the simulated EEG's `begin`, when acquisition starts), not at
 * load: computing it takes 35–50 ms of CPU (measured alone in a fresh process), which every start
 * paid for a table that a service which never acquires does not read. The array itself is made at
 * load and never replaced, so `fastNormal` reads a constant (a table checked or swapped on each
 * draw made the EEG model 28 % slower); until it is filled it holds NaN, so a draw before
 * `prepareFastNormal` shows as NaN samples, never as plausible ones.
 */
const NORMAL_TABLE = new Float64Array(65536).fill(Number.NaN);
let normalTableFilled = false;

/** Fills the table `Random.fastNormal` draws from (once; later calls do nothing). */
export function prepareFastNormal(): void {
  if (normalTableFilled) return;
  normalTableFilled = true;
  const size = NORMAL_TABLE.length;
  // The quantiles are odd about ½ and (i + ½) / 65536 is exact, so the upper half is the lower
  // half negated, bit for bit (Acklam's upper tail is computed as the negated lower tail).
  for (let i = 0; i < size / 2; i++) {
    const value = normalQuantile((i + 0.5) / size);
    NORMAL_TABLE[i] = value;
    NORMAL_TABLE[size - 1 - i] = -value;
  }
  let sumSquares = 0;
  for (let i = 0; i < size; i++) {
    const value = NORMAL_TABLE[i] ?? 0;
    sumSquares += value * value;
  }
  const scale = 1 / Math.sqrt(sumSquares / size);
  for (let i = 0; i < size; i++) NORMAL_TABLE[i] = (NORMAL_TABLE[i] ?? 0) * scale;
}

export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spareNormal: number | undefined;
  /** The unused upper 16 bits of the last draw of `fastNormal`, or -1. */
  private spareBits = -1;
  readonly seed: number;

  constructor(seed: number, label = '') {
    this.seed = seed;
    this.a = hash32(`a:${seed}:${label}`);
    this.b = hash32(`b:${seed}:${label}`);
    this.c = hash32(`c:${seed}:${label}`);
    this.d = 1;
    // Discard the first outputs: sfc32 mixes its state during the first dozen rounds.
    for (let i = 0; i < 15; i++) this.next();
  }

  /** An independent stream for a subsystem, determined by this stream's seed and the label. */
  fork(label: string): Random {
    return new Random(this.seed, label);
  }

  /** A uniform deviate in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /**
   * A standard normal deviate from the quantile table (two per 32-bit draw); the table is filled by
   * `prepareFastNormal`.
   */
  fastNormal(): number {
    let index = this.spareBits;
    if (index < 0) {
      const bits = this.nextUint32();
      index = bits & 0xffff;
      this.spareBits = bits >>> 16;
    } else {
      this.spareBits = -1;
    }
    return NORMAL_TABLE[index] ?? 0;
  }

  /** 32 uniform random bits as an unsigned integer. */
  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A uniform deviate in [low, high). */
  uniform(low: number, high: number): number {
    return low + (high - low) * this.next();
  }

  /** A standard normal deviate (Box-Muller; the second value of each pair is kept for the next call). */
  normal(): number {
    const spare = this.spareNormal;
    if (spare !== undefined) {
      this.spareNormal = undefined;
      return spare;
    }
    let u = this.next();
    while (u <= 1e-12) u = this.next();
    const radius = Math.sqrt(-2 * Math.log(u));
    const angle = 2 * Math.PI * this.next();
    this.spareNormal = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  }
}
