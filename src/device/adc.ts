/**
 * The headset's analogue-to-digital converter and the frames it fills: its resolution and full
 * scale at a gain, the quantisation and clipping of what it converts, and the rows of a frame. The
 * pulled production (production/producer.ts) applies them to a software source's samples; a live
 * amplifier's framer cuts its blocks in the same rows.
 */
/** ADS1299-style converter: ±VREF/gain full scale over 24 bits, VREF = 4.5 V. */
const ADC_REFERENCE_MICROVOLTS = 4_500_000;
const ADC_MAX_CODE = 2 ** 23 - 1;
const ADC_MIN_CODE = -(2 ** 23);

/** The value of one ADC count (µV) at a gain: 2·VREF / gain / 2^24. */
export function adcLsbMicrovolts(gain: number): number {
  return (2 * ADC_REFERENCE_MICROVOLTS) / gain / 2 ** 24;
}

/** The ADC's full scale at a gain, µV: every sample lies in ±this (a frame's `range`). */
export function adcFullScaleMicrovolts(gain: number): number {
  return ADC_REFERENCE_MICROVOLTS / gain;
}

/** Rows per frame at a rate: about 10 ms, at least one. */
export function frameRows(sampleRate: number): number {
  return Math.max(1, Math.round(sampleRate / 100));
}

/** Rounds each value to the nearest ADC code at `gain` and clips at full scale, in place. */
export function quantise(data: Float32Array, gain: number): void {
  const lsb = adcLsbMicrovolts(gain);
  for (let i = 0; i < data.length; i++) {
    const code = Math.round((data[i] ?? 0) / lsb);
    data[i] = (code > ADC_MAX_CODE ? ADC_MAX_CODE : code < ADC_MIN_CODE ? ADC_MIN_CODE : code) * lsb;
  }
}
