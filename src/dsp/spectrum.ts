/**
 * Spectral estimates on sample blocks (one channel at a time):
 * - {@link welch}: `scipy.signal.welch(x, fs, nperseg=…)` with scipy's defaults: periodic Hann
 *   window, 50 % overlap, segment mean removed (`detrend='constant'`), one-sided, density scaling
 *   (units²/Hz), mean over segments; equal to scipy's to ~1e-12 relative (golden vectors).
 * - {@link toneAmplitude}: the amplitude of the component at one frequency, read through a
 *   flat-top window so that a sine of amplitude A reads A within ~0.01 dB even between FFT bins.
 * - {@link bandPower}: power (units², i.e. variance) between two frequencies, from the Welch PSD.
 * Design-time and diagnostic use (impedance checks, line-noise readings, tests); each call
 * allocates its working arrays.
 */

import { WelchPlan } from './welch.js';

function toFloat64(x: ArrayLike<number>): Float64Array {
  return x instanceof Float64Array ? x : Float64Array.from(x);
}

function checkRate(sampleRate: number): void {
  if (!Number.isFinite(sampleRate) || sampleRate <= 0) {
    throw new RangeError(`sample rate ${sampleRate} Hz must be a positive number`);
  }
}

/**
 * Welch PSD (Hann window, 50% overlap, one-sided, density scaling) like
 * `scipy.signal.welch(x, fs, nperseg)` (welch.ts's plan with scipy's defaults). As scipy, an
 * `nperseg` longer than the signal is cut to the signal's length. `psd` is in units²/Hz at
 * `frequencies[k] = k·fs/nperseg`.
 */
export function welch(
  x: ArrayLike<number>,
  sampleRate: number,
  nperseg: number,
): { frequencies: Float64Array; psd: Float64Array } {
  checkRate(sampleRate);
  if (!Number.isInteger(nperseg) || nperseg < 1) {
    throw new RangeError(`nperseg ${nperseg} must be a whole number >= 1`);
  }
  const data = toFloat64(x);
  if (data.length === 0) return { frequencies: new Float64Array(0), psd: new Float64Array(0) };
  const n = Math.min(nperseg, data.length);
  const plan = new WelchPlan({
    sampleRate,
    nperseg: n,
    noverlap: Math.floor(n / 2),
    window: 'hann',
    detrend: 'constant',
  });
  const psd = new Float64Array(plan.bins);
  plan.psd(data, data.length, psd);
  return { frequencies: plan.frequencies, psd };
}

/** scipy's `flattop` window (periodic): amplitude flat within ~0.01 dB across ±1.5 bins. */
const FLATTOP = [0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368] as const;

/**
 * Amplitude of the spectral component nearest `freqHz`: the windowed Fourier transform of the
 * block (mean removed) evaluated at exactly `freqHz` with a flat-top window, amplitude-corrected
 * (`2·|X|/Σw`), so a sine of amplitude A at or within about one bin (fs/N) of `freqHz` reads A to
 * ~0.1 %. Components closer than ~4 bins to `freqHz` merge with it (the flat-top main lobe).
 * At 0 Hz it returns |mean|.
 */
export function toneAmplitude(x: ArrayLike<number>, sampleRate: number, freqHz: number): number {
  checkRate(sampleRate);
  if (!Number.isFinite(freqHz) || freqHz < 0 || freqHz > sampleRate / 2) {
    throw new RangeError(
      `tone frequency ${freqHz} Hz must lie between 0 Hz and Nyquist ${sampleRate / 2} Hz`,
    );
  }
  const data = toFloat64(x);
  const n = data.length;
  if (n === 0) return 0;
  let mean = 0;
  for (const v of data) mean += v;
  mean /= n;
  if (freqHz === 0) return Math.abs(mean);
  const omega = (2 * Math.PI * freqHz) / sampleRate;
  let re = 0;
  let im = 0;
  let windowSum = 0;
  for (let i = 0; i < n; i++) {
    const phase = (2 * Math.PI * i) / n;
    let w = 0;
    FLATTOP.forEach((a, k) => {
      w += (k % 2 === 0 ? a : -a) * Math.cos(k * phase);
    });
    windowSum += w;
    const v = ((data[i] as number) - mean) * w;
    re += v * Math.cos(omega * i);
    im -= v * Math.sin(omega * i);
  }
  // At Nyquist the component is real and not split between ±f: no factor 2.
  const factor = freqHz === sampleRate / 2 ? 1 : 2;
  return (factor * Math.hypot(re, im)) / windowSum;
}

/** Largest power of two <= n (n >= 1). */
function floorPowerOfTwo(n: number): number {
  return 2 ** Math.floor(Math.log2(n));
}

/**
 * Power (units², the variance carried) between `lowHz` and `highHz`, integrated from a Welch PSD
 * with segments of about one second (the largest power of two not above the signal length, capped
 * at the next power of two ≥ fs). Each PSD bin covers ±half a bin around its frequency (clipped to
 * 0..Nyquist) and counts in proportion to its overlap with the band, so [0, Nyquist] gives the
 * whole variance of the mean-removed signal and a sine of amplitude A inside the band gives A²/2.
 */
export function bandPower(x: ArrayLike<number>, sampleRate: number, lowHz: number, highHz: number): number {
  checkRate(sampleRate);
  const nyquist = sampleRate / 2;
  if (!(lowHz >= 0 && highHz <= nyquist && lowHz <= highHz)) {
    throw new RangeError(
      `band ${lowHz}..${highHz} Hz must satisfy 0 <= low <= high <= Nyquist ${nyquist} Hz`,
    );
  }
  if (x.length < 2) return 0;
  const nperseg = Math.max(2, Math.min(floorPowerOfTwo(x.length), 2 ** Math.ceil(Math.log2(sampleRate))));
  const { frequencies, psd } = welch(x, sampleRate, nperseg);
  const df = sampleRate / nperseg;
  let power = 0;
  for (let k = 0; k < psd.length; k++) {
    const f = frequencies[k] as number;
    const binLow = Math.max(0, f - df / 2);
    const binHigh = Math.min(nyquist, f + df / 2);
    const overlap = Math.min(binHigh, highHz) - Math.max(binLow, lowHz);
    if (overlap > 0) power += (psd[k] as number) * df * (overlap / (binHigh - binLow));
  }
  return power;
}
