/**
 * Complex DFT of a length whose prime factors are all small (250 = 2·5³, 500, 1000, 100, 60…), as
 * a Stockham autosort FFT: one pass per factor, each reading one buffer and writing the other, no
 * bit reversal, natural order out. Radix 4, 2, 3 and 5 have butterflies of their own; any other
 * small prime p uses a direct p-point DFT inside its pass. fft.js, the FFT package the project
 * uses, transforms powers of two only, and Bluestein's algorithm on top of it (fft.ts) costs two
 * power-of-two transforms of more than twice the length: for the one-second Welch segments of
 * EEG at 250 Hz, four to five times the work of this one.
 *
 * Pass with radix r on a sub-length n (n = r·m) and stride s, from x to y:
 *   y[q + s·(r·p + u)] = ω_n^{p·u} · Σ_t x[q + s·(p + t·m)] · ω_r^{t·u}
 * for p < m, q < s, u < r, ω_k = e^{−2πi/k}; the next pass runs on n/r with stride s·r.
 */

/** Largest prime factor transformed here; a length with a larger one goes to Bluestein. */
export const MAX_PRIME_FACTOR = 13;

/** The factors a length is transformed with (fours first), or undefined if one is too large. */
export function smallFactors(n: number): number[] | undefined {
  const factors: number[] = [];
  let rest = n;
  while (rest % 4 === 0) {
    factors.push(4);
    rest /= 4;
  }
  for (let p = 2; p <= MAX_PRIME_FACTOR && rest > 1; p++) {
    while (rest % p === 0) {
      factors.push(p);
      rest /= p;
    }
  }
  return rest === 1 ? factors : undefined;
}

interface Pass {
  radix: number;
  /** Sub-length this pass splits, n = radix · m. */
  n: number;
  m: number;
  stride: number;
  /** ω_n^{p·u} for p < m, u = 1 … radix − 1, as (re, im) pairs at 2·(p·(radix − 1) + u − 1). */
  twiddles: Float64Array;
  /** Generic radix only: ω_radix^{k} for k < radix, (re, im) pairs. */
  roots: Float64Array | undefined;
}

export class MixedRadixFft {
  readonly n: number;
  private readonly passes: Pass[];
  private readonly bufferRe: Float64Array;
  private readonly bufferIm: Float64Array;
  private readonly scratchRe: Float64Array;
  private readonly scratchIm: Float64Array;

  constructor(n: number) {
    const factors = smallFactors(n);
    if (factors === undefined || n < 2) {
      throw new RangeError(`length ${n} has a prime factor above ${MAX_PRIME_FACTOR} (or is below 2)`);
    }
    this.n = n;
    this.passes = [];
    let sub = n;
    let stride = 1;
    for (const radix of factors) {
      const m = sub / radix;
      const twiddles = new Float64Array(2 * m * (radix - 1));
      for (let p = 0; p < m; p++) {
        for (let u = 1; u < radix; u++) {
          const angle = (-2 * Math.PI * ((p * u) % sub)) / sub;
          const at = 2 * (p * (radix - 1) + u - 1);
          twiddles[at] = Math.cos(angle);
          twiddles[at + 1] = Math.sin(angle);
        }
      }
      let roots: Float64Array | undefined;
      if (radix > 5) {
        roots = new Float64Array(2 * radix);
        for (let k = 0; k < radix; k++) {
          roots[2 * k] = Math.cos((-2 * Math.PI * k) / radix);
          roots[2 * k + 1] = Math.sin((-2 * Math.PI * k) / radix);
        }
      }
      this.passes.push({ radix, n: sub, m, stride, twiddles, roots });
      sub = m;
      stride *= radix;
    }
    this.bufferRe = new Float64Array(n);
    this.bufferIm = new Float64Array(n);
    const largest = Math.max(...factors);
    this.scratchRe = new Float64Array(largest);
    this.scratchIm = new Float64Array(largest);
  }

  /**
   * `X[k] = Σ x[j]·e^{−2πijk/n}` in place: `re` and `im` (length n) hold x on entry and X on return.
   */
  transform(re: Float64Array, im: Float64Array): void {
    let xr = re;
    let xi = im;
    let yr = this.bufferRe;
    let yi = this.bufferIm;
    for (const pass of this.passes) {
      switch (pass.radix) {
        case 2:
          radix2(pass, xr, xi, yr, yi);
          break;
        case 3:
          radix3(pass, xr, xi, yr, yi);
          break;
        case 4:
          radix4(pass, xr, xi, yr, yi);
          break;
        case 5:
          radix5(pass, xr, xi, yr, yi);
          break;
        default:
          this.radixGeneric(pass, xr, xi, yr, yi);
      }
      [xr, yr] = [yr, xr];
      [xi, yi] = [yi, xi];
    }
    if (xr !== re) {
      re.set(xr);
      im.set(xi);
    }
  }

  private radixGeneric(
    pass: Pass,
    xr: Float64Array,
    xi: Float64Array,
    yr: Float64Array,
    yi: Float64Array,
  ): void {
    const { radix: r, m, stride: s, twiddles: w } = pass;
    const roots = pass.roots as Float64Array;
    const ar = this.scratchRe;
    const ai = this.scratchIm;
    for (let p = 0; p < m; p++) {
      const wAt = 2 * p * (r - 1);
      for (let q = 0; q < s; q++) {
        for (let t = 0; t < r; t++) {
          ar[t] = xr[q + s * (p + t * m)] as number;
          ai[t] = xi[q + s * (p + t * m)] as number;
        }
        for (let u = 0; u < r; u++) {
          let sr = 0;
          let si = 0;
          for (let t = 0; t < r; t++) {
            const k = 2 * ((t * u) % r);
            const cr = roots[k] as number;
            const ci = roots[k + 1] as number;
            sr += (ar[t] as number) * cr - (ai[t] as number) * ci;
            si += (ar[t] as number) * ci + (ai[t] as number) * cr;
          }
          const out = q + s * (r * p + u);
          if (u === 0) {
            yr[out] = sr;
            yi[out] = si;
          } else {
            twiddled(yr, yi, out, sr, si, w, wAt + 2 * (u - 1));
          }
        }
      }
    }
  }
}

function radix2(pass: Pass, xr: Float64Array, xi: Float64Array, yr: Float64Array, yi: Float64Array): void {
  const { m, stride: s, twiddles: w } = pass;
  for (let p = 0; p < m; p++) {
    for (let q = 0; q < s; q++) {
      const i0 = q + s * p;
      const i1 = i0 + s * m;
      const ar = xr[i0] as number;
      const ai = xi[i0] as number;
      const br = xr[i1] as number;
      const bi = xi[i1] as number;
      const o = q + s * 2 * p;
      yr[o] = ar + br;
      yi[o] = ai + bi;
      twiddled(yr, yi, o + s, ar - br, ai - bi, w, 2 * p);
    }
  }
}

// sin(2π/3)
const S3 = Math.sqrt(3) / 2;

function radix3(pass: Pass, xr: Float64Array, xi: Float64Array, yr: Float64Array, yi: Float64Array): void {
  const { m, stride: s, twiddles: w } = pass;
  const sm = s * m;
  for (let p = 0; p < m; p++) {
    for (let q = 0; q < s; q++) {
      const i0 = q + s * p;
      const x0r = xr[i0] as number;
      const x0i = xi[i0] as number;
      const x1r = xr[i0 + sm] as number;
      const x1i = xi[i0 + sm] as number;
      const x2r = xr[i0 + 2 * sm] as number;
      const x2i = xi[i0 + 2 * sm] as number;
      const tr = x1r + x2r;
      const ti = x1i + x2i;
      const mr = x0r - 0.5 * tr;
      const mi = x0i - 0.5 * ti;
      // −i·sin(2π/3)·(x1 − x2)
      const nr = S3 * (x1i - x2i);
      const ni = -S3 * (x1r - x2r);
      const o = q + s * 3 * p;
      yr[o] = x0r + tr;
      yi[o] = x0i + ti;
      twiddled(yr, yi, o + s, mr + nr, mi + ni, w, 4 * p);
      twiddled(yr, yi, o + 2 * s, mr - nr, mi - ni, w, 4 * p + 2);
    }
  }
}

function radix4(pass: Pass, xr: Float64Array, xi: Float64Array, yr: Float64Array, yi: Float64Array): void {
  const { m, stride: s, twiddles: w } = pass;
  const sm = s * m;
  for (let p = 0; p < m; p++) {
    for (let q = 0; q < s; q++) {
      const i0 = q + s * p;
      const x0r = xr[i0] as number;
      const x0i = xi[i0] as number;
      const x1r = xr[i0 + sm] as number;
      const x1i = xi[i0 + sm] as number;
      const x2r = xr[i0 + 2 * sm] as number;
      const x2i = xi[i0 + 2 * sm] as number;
      const x3r = xr[i0 + 3 * sm] as number;
      const x3i = xi[i0 + 3 * sm] as number;
      const ar = x0r + x2r;
      const ai = x0i + x2i;
      const br = x0r - x2r;
      const bi = x0i - x2i;
      const cr = x1r + x3r;
      const ci = x1i + x3i;
      // −i·(x1 − x3)
      const dr = x1i - x3i;
      const di = x3r - x1r;
      const o = q + s * 4 * p;
      yr[o] = ar + cr;
      yi[o] = ai + ci;
      twiddled(yr, yi, o + s, br + dr, bi + di, w, 6 * p);
      twiddled(yr, yi, o + 2 * s, ar - cr, ai - ci, w, 6 * p + 2);
      twiddled(yr, yi, o + 3 * s, br - dr, bi - di, w, 6 * p + 4);
    }
  }
}

// cos and sin of 2π/5 and 4π/5
const C1 = Math.cos((2 * Math.PI) / 5);
const C2 = Math.cos((4 * Math.PI) / 5);
const S1 = Math.sin((2 * Math.PI) / 5);
const S2 = Math.sin((4 * Math.PI) / 5);

function radix5(pass: Pass, xr: Float64Array, xi: Float64Array, yr: Float64Array, yi: Float64Array): void {
  const { m, stride: s, twiddles: w } = pass;
  const sm = s * m;
  for (let p = 0; p < m; p++) {
    const wAt = 8 * p;
    for (let q = 0; q < s; q++) {
      const i0 = q + s * p;
      const x0r = xr[i0] as number;
      const x0i = xi[i0] as number;
      const x1r = xr[i0 + sm] as number;
      const x1i = xi[i0 + sm] as number;
      const x2r = xr[i0 + 2 * sm] as number;
      const x2i = xi[i0 + 2 * sm] as number;
      const x3r = xr[i0 + 3 * sm] as number;
      const x3i = xi[i0 + 3 * sm] as number;
      const x4r = xr[i0 + 4 * sm] as number;
      const x4i = xi[i0 + 4 * sm] as number;
      const a1r = x1r + x4r;
      const a1i = x1i + x4i;
      const a2r = x2r + x3r;
      const a2i = x2i + x3i;
      const d1r = x1r - x4r;
      const d1i = x1i - x4i;
      const d2r = x2r - x3r;
      const d2i = x2i - x3i;
      const m1r = x0r + C1 * a1r + C2 * a2r;
      const m1i = x0i + C1 * a1i + C2 * a2i;
      const m2r = x0r + C2 * a1r + C1 * a2r;
      const m2i = x0i + C2 * a1i + C1 * a2i;
      // −i·(S1·d1 + S2·d2) and −i·(S2·d1 − S1·d2)
      const n1r = S1 * d1i + S2 * d2i;
      const n1i = -(S1 * d1r + S2 * d2r);
      const n2r = S2 * d1i - S1 * d2i;
      const n2i = -(S2 * d1r - S1 * d2r);
      const o = q + s * 5 * p;
      yr[o] = x0r + a1r + a2r;
      yi[o] = x0i + a1i + a2i;
      twiddled(yr, yi, o + s, m1r + n1r, m1i + n1i, w, wAt);
      twiddled(yr, yi, o + 2 * s, m2r + n2r, m2i + n2i, w, wAt + 2);
      twiddled(yr, yi, o + 3 * s, m2r - n2r, m2i - n2i, w, wAt + 4);
      twiddled(yr, yi, o + 4 * s, m1r - n1r, m1i - n1i, w, wAt + 6);
    }
  }
}

/** y[at] = (br + i·bi) · (w[k] + i·w[k + 1]). */
function twiddled(
  yr: Float64Array,
  yi: Float64Array,
  at: number,
  br: number,
  bi: number,
  w: Float64Array,
  k: number,
): void {
  const tr = w[k] as number;
  const ti = w[k + 1] as number;
  yr[at] = br * tr - bi * ti;
  yi[at] = br * ti + bi * tr;
}
