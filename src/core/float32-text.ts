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
 * multiple strictly inside that interval. The interval holds 4 to 120 integers, so that power is
 * found in int32, dividing the interval's integer ends by ten until they meet: a third fewer
 * instructions than trying each power of ten in doubles (docs/performance.md §Samples as text).
 * Outside that range (rare for samples), `toPrecision` finds it more slowly.
 */

/** Exact powers of ten as doubles, 10^0 … 10^22. */
const POW10 = Float64Array.from({ length: 23 }, (_, i) => 10 ** i);
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
  // Every candidate is an integer (a multiple of 10^t, t ≥ 0): those that read back as x are lo to
  // hi, the integers strictly inside the bounds by the margin, and a bound itself when it may be.
  const lowIn = low + margin;
  let lo = Math.floor(lowIn) + 1;
  if (evenSignificand && Math.floor(low) === low) lo = low;
  const highIn = high - margin;
  let hi = Math.ceil(highIn) - 1;
  if (evenSignificand && Math.floor(high) === high) hi = high;
  // The largest t with a multiple of 10^t in [lo, hi]: the last t at which floor(hi / 10^t) still
  // exceeds floor((lo - 1) / 10^t). In int32 (hi < 2^31), where a division by ten is a multiply.
  // The interval holds at least four integers, so t = 0 always has one: nine digits suffice.
  let h = hi | 0;
  let l = (lo - 1) | 0;
  let t = 0;
  for (;;) {
    const h1 = (h / 10) | 0;
    const l1 = (l / 10) | 0;
    if (h1 === l1) break;
    h = h1;
    l = l1;
    t++;
  }
  // The multiples of 10^t inside are (l + 1 … h) × 10^t: one (the usual case), or the nearest to x
  // of them, the even one on a tie.
  if (h === l + 1) return writeDecimal(at, h, t - k);
  const p = POW10[t] as number;
  let q = Math.floor(scaled / p);
  // The quotient may be one off; the products and these differences of nearby doubles are exact.
  if (q * p > scaled) q--;
  else if ((q + 1) * p <= scaled) q++;
  const downGap = scaled - q * p;
  const upGap = (q + 1) * p - scaled;
  if (upGap < downGap || (upGap === downGap && (q & 1) === 1)) q++;
  if (q <= l) q = l + 1;
  else if (q > h) q = h;
  return writeDecimal(at, q, t - k);
}

/** Writes q × 10^e (q a positive integer below 2^31, 1e-4 ≤ q × 10^e < 1e9) in decimal notation. */
function writeDecimal(at: number, mantissa: number, exponent: number): number {
  let q = mantissa | 0;
  let e = exponent;
  // Trailing zeros go into the exponent (the shortest search leaves none; a caller may).
  let tenth = (q / 10) | 0;
  while (q === tenth * 10) {
    q = tenth;
    tenth = (q / 10) | 0;
    e++;
  }
  let n = 1;
  while (n < 10 && q >= (POW10[n] as number)) n++;
  if (e >= 0) {
    writeDigits(at + n, q, n);
    let end = at + n;
    for (let i = 0; i < e; i++) out[end++] = ZERO;
    return end;
  }
  const before = n + e; // digits before the point
  if (before > 0) {
    const end = at + n + 1;
    const whole = writeDigits(end, q, -e);
    out[at + before] = DOT;
    writeDigits(at + before, whole, before);
    return end;
  }
  let start = at;
  out[start++] = ZERO;
  out[start++] = DOT;
  for (let i = 0; i < -before; i++) out[start++] = ZERO;
  writeDigits(start + n, q, n);
  return start + n;
}

/** Writes the last `count` digits of q, ending just before `end`; answers q without them. */
function writeDigits(end: number, q: number, count: number): number {
  let rest = q;
  let at = end;
  for (let i = 0; i < count; i++) {
    const tenth = (rest / 10) | 0;
    out[--at] = ZERO + rest - tenth * 10;
    rest = tenth;
  }
  return rest;
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
