/**
 * Decimal text for float32 samples: the fewest significant digits (1 to 9) whose value rounds
 * back to the same float32, so `Math.fround(Number(text)) === value` and no digit is wasted.
 * Nine significant digits always suffice for float32 (IEEE 754 §5.12.2).
 *
 * Speed matters (a 16 kHz × 19-channel CSV is 304,000 numbers a second) and `toPrecision` costs
 * about 1 µs a call, so the common range is done in integer arithmetic: for p = 1, 2, … digits,
 * m = round(|v| × 10^k) and the check `fround(m / 10^k) === |v|`. With m < 2^53 and 10^k exact
 * (|k| ≤ 22), m / 10^k is one correctly rounded division, which is exactly the double that
 * parsing the text "m × 10^-k" gives, so the check is the round-trip property itself.
 */

/** Exact powers of ten as doubles: 10^0 … 10^22. */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/** Outside this range JS prints exponents, and 10^k may be inexact: use the slow path. */
const FAST_MIN = 1e-6;
const FAST_MAX = 1e21;

/** Shortest round-tripping text of Math.fround(value); `NaN`, `Infinity`, `-Infinity` as such. */
export function formatFloat32(value: number): string {
  const v = Math.fround(value);
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a < FAST_MIN || a >= FAST_MAX) return slowFormat(v);
  const sign = v < 0 ? '-' : '';
  // Decimal exponent of a: 10^e ≤ a < 10^(e+1).
  let e = Math.floor(Math.log10(a));
  if (pow10(e) > a) e--;
  else if (pow10(e + 1) <= a) e++;
  for (let p = 1; p <= 9; p++) {
    const k = p - 1 - e;
    if (k > 22 || k < -22) break;
    const m = k >= 0 ? Math.round(a * (POW10[k] as number)) : Math.round(a / (POW10[-k] as number));
    const back = k >= 0 ? m / (POW10[k] as number) : m * (POW10[-k] as number);
    if (Math.fround(back) === a) return sign + placePoint(m, k);
  }
  return slowFormat(v);
}

function pow10(e: number): number {
  return e >= 0 ? (POW10[e] ?? 10 ** e) : 1 / (POW10[-e] ?? 10 ** -e);
}

/** The decimal text of m × 10^-k, without trailing zeros after the point. */
function placePoint(mantissa: number, scale: number): string {
  let m = mantissa;
  let k = scale;
  // Only a rounding up to 10^p leaves trailing zeros in m; drop them arithmetically.
  while (k > 0 && m % 10 === 0 && m !== 0) {
    m /= 10;
    k--;
  }
  const digits = String(m);
  if (k <= 0) return m === 0 ? '0' : digits + '0'.repeat(-k);
  if (digits.length > k) return `${digits.slice(0, digits.length - k)}.${digits.slice(digits.length - k)}`;
  return `0.${'0'.repeat(k - digits.length)}${digits}`;
}

/** Reference path with toPrecision (round-tripping is monotone in the digit count). */
function slowFormat(v: number): string {
  for (let digits = 1; digits < 9; digits++) {
    const text = v.toPrecision(digits);
    if (Math.fround(Number(text)) === v) return String(Number(text));
  }
  return String(Number(v.toPrecision(9)));
}
