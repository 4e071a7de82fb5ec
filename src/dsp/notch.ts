/**
 * Notch (band-reject) biquad: `scipy.signal.iirnotch(freqHz, q, fs=sampleRate)` as one second-order
 * section, with scipy 1.10's formulas and operation order (−3 dB bandwidth = freq/Q, bilinear
 * design after Sophocles Orfanidis, "Introduction to Signal Processing"), and `cascade()` to chain
 * section arrays.
 */

import type { Sos } from './sos.js';

/**
 * `scipy.signal.iirnotch(freqHz, q, fs=sampleRate)` as one section `[b0 b1 b2 1 a1 a2]`.
 * Throws RangeError when the frequency is not strictly between 0 and Nyquist or Q is not positive.
 */
export function notch(freqHz: number, q: number, sampleRate: number): Sos {
  if (!Number.isFinite(sampleRate) || sampleRate <= 0) {
    throw new RangeError(`sample rate ${sampleRate} Hz must be a positive number`);
  }
  const nyquist = sampleRate / 2;
  if (!Number.isFinite(freqHz) || freqHz <= 0 || freqHz >= nyquist) {
    throw new RangeError(
      `notch ${freqHz} Hz must lie strictly between 0 Hz and the Nyquist frequency ${nyquist} Hz`,
    );
  }
  if (!Number.isFinite(q) || q <= 0) {
    throw new RangeError(`notch quality factor Q ${q} must be a positive number`);
  }
  const w0 = (2 * freqHz) / sampleRate;
  const bw = (w0 / q) * Math.PI;
  const w0rad = w0 * Math.PI;
  const gb = 1 / Math.sqrt(2); // gain at the band edges: −3 dB
  const beta = (Math.sqrt(1.0 - gb * gb) / gb) * Math.tan(bw / 2.0);
  const gain = 1.0 / (1.0 + beta);
  const cos = Math.cos(w0rad);
  return Float64Array.of(gain, gain * (-2.0 * cos), gain, 1, -2.0 * gain * cos, 2.0 * gain - 1.0);
}

/** Concatenates section arrays into one cascade (the first part filters first). */
export function cascade(...parts: Sos[]): Sos {
  let length = 0;
  for (const part of parts) {
    if (part.length % 6 !== 0) {
      throw new RangeError(`a section array holds 6 values per section; got ${part.length}`);
    }
    length += part.length;
  }
  const out = new Float64Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
