/**
 * Decimal text of float32 samples: the fewest significant digits (1 to 9) whose value reads back as
 * the same float32, so `Math.fround(Number(text)) === value`; among texts of that length, the one
 * nearest the value, ties to an even last digit: the text numpy's `repr` of a `float32` gives, in
 * JavaScript's number notation. Nine significant digits always suffice for float32 (IEEE 754
 * §5.12.2). Every text form of samples uses it: the frame's JSON (./frame.ts `frameJsonText`) and
 * the CSV writer (formats/csv-writer.ts).
 *
 * Why not the samples' own `String`: a float32 widened to a double prints as the double's 17
 * digits (`0.10000000149011612` for float32 0.1), twice the bytes, and V8 often has to take its
 * slow big-number path to print them; the digits past the ninth say nothing about the float32.
 *
 * Speed matters (a 500 Hz frame of 21 channels is 126 numbers, 83 frames a second, in every JSON
 * client's stream), so the common range is done with exact double arithmetic and the digits
 * written as bytes: a float32 x = m × 2^e has a 24-bit significand and 10^k = 5^k × 2^k with 5^k
 * below 2^28 for k ≤ 12, so x × 10^k, and the bounds of the interval of reals that round to x
 * (25-bit significands), are exact doubles for 0 ≤ k ≤ 12. Scaled so that x has nine digits
 * before the point (1e-4 ≤ |x| < 1e9), the shortest text is the largest power of ten with a
 * multiple strictly inside that interval. Outside that range (rare for samples), `toPrecision`
 * finds it more slowly.
 */

/** Exact powers of ten as doubles, 10^0 … 10^22, and their reciprocals (to estimate, never to decide). */
const POW10 = Float64Array.from({ length: 23 }, (_, i) => 10 ** i);
const INV_POW10 = POW10.map((p) => 1 / p);
/** Half the spacing of float32s with biased exponent e (normal numbers): 2^(e − 127 − 23 − 1). */
const HALF_SPACING = Float64Array.from({ length: 256 }, (_, e) => 2 ** (e - 151));
const LOG10_2 = Math.log10(2);
/**
 * A candidate not on a bound must clear it by this much of the scaled value: then the double a
 * reader parses the text into is inside the bounds too, so reading the text as a double and
 * rounding that to float32 gives the value, as reading it straight to float32 does. (A candidate
 * on a bound is that bound's double exactly.)
 */
const MARGIN = 2 ** -50;

const ZERO = 48;
const DOT = 46;
const COMMA = 44;
const MINUS = 45;
const OPEN = 91;
const CLOSE = 93;

/** One value's scratch for {@link float32Text}. */
const ONE = new Float32Array(1);
const ONE_BITS = new Uint32Array(ONE.buffer);
/** Digits of the mantissa being written, last first. */
const DIGITS = new Uint8Array(10);
/** Where texts are written; grown as needed, never shrunk (a frame's row at a time). */
let out = Buffer.allocUnsafe(4096);

/** The shortest text of Math.fround(value); `NaN`, `Infinity` and `-Infinity` as JavaScript writes them. */
export function float32Text(value: number): string {
  ONE[0] = value;
  const v = ONE[0];
  if (v !== v || v === Infinity || v === -Infinity) return String(v);
  const end = writeFinite(0, v, ONE_BITS[0] as number);
  return out.toString('latin1', 0, end);
}

/**
 * Row-major `values` as JSON rows of `width` values, `[a,b],[c,d]` (without the outer brackets):
 * each value as {@link float32Text}, and a value JSON has no number for (NaN, ±Infinity) as the
 * string `"NaN"`, `"Infinity"`, `"-Infinity"` (docs/api.md §Frames).
 */
export function float32JsonRows(values: Float32Array, width: number): string {
  const n = values.length;
  if (n === 0 || width <= 0) return '';
  // The longest value is a sign, "0.000" and nine digits, or `"-Infinity"`, and a comma; and
  // each row adds "],[".
  const room = n * 16 + (n / width) * 3;
  if (out.length < room) out = Buffer.allocUnsafe(Math.max(room, out.length * 2));
  const bits = new Uint32Array(values.buffer, values.byteOffset, n);
  let at = 0;
  out[at++] = OPEN;
  for (let i = 0; i < n; i++) {
    if (i > 0) {
      if (i % width === 0) {
        out[at++] = CLOSE;
        out[at++] = COMMA;
        out[at++] = OPEN;
      } else out[at++] = COMMA;
    }
    const v = values[i] as number;
    if (v !== v || v === Infinity || v === -Infinity) at = writeAscii(at, `"${String(v)}"`);
    else at = writeFinite(at, v, bits[i] as number);
  }
  out[at++] = CLOSE;
  return out.toString('latin1', 0, at);
}

/** Writes finite float32 `v` (with IEEE bits `bits`) at `at`; returns where its text ends. */
function writeFinite(at: number, v: number, bits: number): number {
  if (v === 0) {
    out[at] = ZERO;
    return at + 1;
  }
  let start = at;
  if (v < 0) out[start++] = MINUS;
  const end = writeShortest(start, v < 0 ? -v : v, bits);
  return end >= 0 ? end : writeAscii(start, slowText(v < 0 ? -v : v));
}

/** Writes the shortest text of positive float32 `x` in the fast range; -1 when outside it. */
function writeShortest(at: number, x: number, bits: number): number {
  const exponent = (bits >>> 23) & 0xff;
  if (exponent === 0) return -1; // subnormal
  // k: the power of ten that gives x nine digits before the point (the estimate is at most one off).
  let k = 8 - Math.floor((exponent - 127) * LOG10_2);
  if (k < 0 || k > 12) return -1;
  let scaled = x * (POW10[k] as number);
  if (scaled >= 1e9) {
    if (k === 0) return -1;
    k--;
    scaled = x * (POW10[k] as number);
  } else if (scaled < 1e8) {
    if (k === 12) return -1;
    k++;
    scaled = x * (POW10[k] as number);
  }
  // The reals that round to x, scaled: half a spacing either side, a quarter below a power of two.
  const half = (HALF_SPACING[exponent] as number) * (POW10[k] as number);
  const powerOfTwo = (bits & 0x7fffff) === 0 && exponent > 1;
  const low = scaled - (powerOfTwo ? half / 2 : half);
  const high = scaled + half;
  // A bound itself reads back as x when x's significand is even (ties round to even).
  const evenSignificand = (bits & 1) === 0;
  const margin = scaled * MARGIN;
  // The largest 10^t with a multiple inside (low, high), that multiple the nearest to x.
  let best = -1;
  let bestT = 0;
  for (let t = 0; t <= 8; t++) {
    const p = POW10[t] as number;
    let q = Math.round(scaled * (INV_POW10[t] as number));
    // The estimate may be one off near a tie; of the two multiples around x, take the nearer, the
    // even one on a tie.
    const other = q * p <= scaled ? q + 1 : q - 1;
    const gap = Math.abs(q * p - scaled);
    const otherGap = Math.abs(other * p - scaled);
    if (otherGap < gap || (otherGap === gap && other % 2 === 0)) q = other;
    if (inside(q * p, low, high, margin, evenSignificand)) {
      best = q;
      bestT = t;
      continue;
    }
    // The nearer multiple is out; the farther one may still be in (the bounds are not symmetric).
    const far = q * p <= scaled ? q + 1 : q - 1;
    if (inside(far * p, low, high, margin, evenSignificand)) {
      best = far;
      bestT = t;
      continue;
    }
    break;
  }
  if (best < 0) return -1;
  return writeDecimal(at, best, bestT - k);
}

/**
 * Whether candidate c (scaled, exact) reads back as x: strictly between the bounds by the margin,
 * or on a bound exactly when x's significand is even.
 */
function inside(c: number, low: number, high: number, margin: number, evenSignificand: boolean): boolean {
  if (c > low + margin && c < high - margin) return true;
  return evenSignificand && (c === low || c === high);
}

/** Writes q × 10^e (q a positive integer below 2^31, 1e-4 ≤ q × 10^e < 1e9) in decimal notation. */
function writeDecimal(at: number, mantissa: number, exponent: number): number {
  let q = mantissa | 0;
  let e = exponent;
  let tenth = (q / 10) | 0;
  while (q === tenth * 10) {
    q = tenth;
    tenth = (q / 10) | 0;
    e++;
  }
  let n = 0;
  while (q !== 0) {
    tenth = (q / 10) | 0;
    DIGITS[n++] = ZERO + q - tenth * 10;
    q = tenth;
  }
  const before = n + e; // digits before the point
  if (e >= 0) {
    for (let i = n - 1; i >= 0; i--) out[at++] = DIGITS[i] as number;
    for (let i = 0; i < e; i++) out[at++] = ZERO;
    return at;
  }
  if (before > 0) {
    for (let i = n - 1; i >= 0; i--) {
      out[at++] = DIGITS[i] as number;
      if (i === n - before) out[at++] = DOT;
    }
    return at;
  }
  out[at++] = ZERO;
  out[at++] = DOT;
  for (let i = 0; i < -before; i++) out[at++] = ZERO;
  for (let i = n - 1; i >= 0; i--) out[at++] = DIGITS[i] as number;
  return at;
}

function writeAscii(at: number, text: string): number {
  let end = at;
  for (let i = 0; i < text.length; i++) out[end++] = text.charCodeAt(i);
  return end;
}

/**
 * The slow path, for |x| below 1e-4 or from 1e9 (where the scaled values are not exact): the
 * fewest `toPrecision` digits that read back as x. toPrecision breaks a tie upwards where numpy
 * breaks it to even, but no float32 in these ranges lies halfway between two texts of its
 * shortest length (a tiny one's decimal expansion is far longer than nine digits; a large one
 * would need more than 24 significant bits), as the test against numpy checks.
 */
function slowText(x: number): string {
  for (let digits = 1; digits < 9; digits++) {
    const text = x.toPrecision(digits);
    if (Math.fround(Number(text)) === x) return String(Number(text));
  }
  return String(Number(x.toPrecision(9)));
}
