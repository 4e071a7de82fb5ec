/**
 * The `filter` node's design (docs/api.md §Built-in executables: `highpass`, `lowpass`, `order`
 * 1..8 default 4, `notch`, `notchQ` default 30) turned into one cascade of second-order sections:
 * - highpass only → `butter(order, highpass, 'highpass')`
 * - lowpass only → `butter(order, lowpass, 'lowpass')`
 * - both → `butter(order, [highpass, lowpass], 'bandpass')` (order N gives 2N poles, as scipy)
 * - then, when `notch` is set, the `iirnotch(notch, notchQ)` section last.
 * A notch alone is allowed too. The filter node redesigns with this whenever the sample rate
 * changes (a frame with `discontinuity: true`), so the checks here are against the rate given.
 */

import { butterworth, MAX_BUTTERWORTH_ORDER } from './butterworth.js';
import { cascade, notch } from './notch.js';
import type { Sos } from './sos.js';

/** The `filter` node's settings, in Hz; an `undefined` field counts as absent. */
export interface FilterSpec {
  highpass?: number | undefined;
  lowpass?: number | undefined;
  order?: number | undefined;
  notch?: number | undefined;
  notchQ?: number | undefined;
}

export const DEFAULT_FILTER_ORDER = 4;
export const DEFAULT_NOTCH_Q = 30;

/** Throws a RangeError naming `field` unless 0 < hz < Nyquist. */
function checkFrequency(field: string, hz: number, sampleRate: number): void {
  const nyquist = sampleRate / 2;
  if (!Number.isFinite(hz) || hz <= 0) {
    throw new RangeError(`${field} ${hz} Hz must be a frequency above 0 Hz`);
  }
  if (hz >= nyquist) {
    throw new RangeError(
      `${field} ${hz} Hz is at or above the Nyquist frequency ${nyquist} Hz (sample rate ${sampleRate} Hz)`,
    );
  }
}

/**
 * The filter node's design: highpass and/or lowpass (band-pass when both, via butterworth
 * 'bandpass' of the given order) plus an optional notch. Throws RangeError naming the offending
 * field (e.g. "lowpass 200 Hz is at or above the Nyquist frequency 125 Hz") when the design is
 * impossible at this rate.
 */
export function designFilter(spec: FilterSpec, sampleRate: number): Sos {
  if (!Number.isFinite(sampleRate) || sampleRate <= 0) {
    throw new RangeError(`sample rate ${sampleRate} Hz must be a positive number`);
  }
  const { highpass, lowpass } = spec;
  const order = spec.order ?? DEFAULT_FILTER_ORDER;
  if (!Number.isInteger(order) || order < 1 || order > MAX_BUTTERWORTH_ORDER) {
    throw new RangeError(`order ${order} must be a whole number from 1 to ${MAX_BUTTERWORTH_ORDER}`);
  }
  if (highpass === undefined && lowpass === undefined && spec.notch === undefined) {
    throw new RangeError('a filter needs at least one of highpass, lowpass or notch');
  }
  if (highpass !== undefined) checkFrequency('highpass', highpass, sampleRate);
  if (lowpass !== undefined) checkFrequency('lowpass', lowpass, sampleRate);
  const parts: Sos[] = [];
  if (highpass !== undefined && lowpass !== undefined) {
    if (!(highpass < lowpass)) {
      throw new RangeError(
        `highpass ${highpass} Hz must be below lowpass ${lowpass} Hz (together they make a band-pass)`,
      );
    }
    parts.push(butterworth(order, [highpass, lowpass], 'bandpass', sampleRate));
  } else if (highpass !== undefined) {
    parts.push(butterworth(order, highpass, 'highpass', sampleRate));
  } else if (lowpass !== undefined) {
    parts.push(butterworth(order, lowpass, 'lowpass', sampleRate));
  }
  if (spec.notch !== undefined) {
    checkFrequency('notch', spec.notch, sampleRate);
    const q = spec.notchQ ?? DEFAULT_NOTCH_Q;
    if (!Number.isFinite(q) || q <= 0) throw new RangeError(`notchQ ${q} must be a positive number`);
    parts.push(notch(spec.notch, q, sampleRate));
  }
  return cascade(...parts);
}
