/**
 * A frame's unit as an EDF/BDF signal's "physical dimension" (8 ASCII characters) and as a CSV
 * column's suffix. EDF allows only printable ASCII: `µ` (either code point) is written `u`, the
 * superscripts `²` and `³` as `2` and `3`, so `µV` is `uV` (what EDF readers expect: MNE and
 * EDFbrowser scale `uV` to volts), `µV²` is `uV2`, `m/s²` is `m/s2`. A dimensionless quantity (`1`:
 * a ratio, a score) has an empty dimension, as EDF+ writes one. Any other character outside
 * printable ASCII becomes `?`; what does not fit in 8 characters is cut (the sidecar keeps the
 * unit whole).
 */

/** The EDF/BDF physical dimension of `unit`. */
export function edfPhysicalDimension(unit: string): string {
  if (unit === '1') return '';
  const ascii = unit
    .replace(/[µμ]/g, 'u')
    .replace(/²/g, '2')
    .replace(/³/g, '3')
    .replace(/[^\x20-\x7e]/g, '?');
  return ascii.slice(0, 8);
}
