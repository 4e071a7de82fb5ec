/**
 * Decimal text for float32 samples: the fewest significant digits (1 to 9) whose value rounds
 * back to the same float32, so `Math.fround(Number(text)) === value` and no digit is wasted.
 * Nine significant digits always suffice for float32 (IEEE 754 §5.12.2).
 */

/** Shortest round-tripping text of Math.fround(value); `NaN`, `Infinity`, `-Infinity` as such. */
export function formatFloat32(value: number): string {
  const v = Math.fround(value);
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  for (let digits = 1; digits < 9; digits++) {
    const text = v.toPrecision(digits);
    // String(Number(…)) drops trailing zeros and the exponent form toPrecision may use.
    if (Math.fround(Number(text)) === v) return String(Number(text));
  }
  return String(Number(v.toPrecision(9)));
}
