/**
 * Electrode impedance from the lead-off current, computed as OpenBCI's GUI does it.
 *
 * The method (OpenBCI GUI, its Cyton impedance widget and its constants for the Cyton): switch the
 * ADS1299's lead-off current source on one input of one channel at a time, with that channel at
 * gain 1, normal input, in bias, SRB1 and SRB2 disconnected; the 6 nA, 31.2 Hz current flows
 * through the electrode and the board's 2.2 kΩ series resistor, and the channel reads the voltage
 * it develops. With σ the standard deviation of that voltage (µV), the amplitude of the sine is
 * √2·σ, and
 *
 *     Z = √2 · σ · 1e-6 / 6 nA − 2200 Ω        (never below 0)
 *
 * Two differences, both documented in the device's docs:
 * - σ is the standard deviation of the signal's 31.25 Hz component (a least-squares fit of a sine
 *   and cosine at the drive frequency, with an offset), not of the whole 5-50 Hz band as the GUI
 *   takes it: the same number for a clean signal, without the EEG and line noise added to it.
 * - With a Daisy the board sends the mean of each chip's last two 250 Hz samples, which scales a
 *   31.25 Hz sine by cos(π·31.25/250) ≈ 0.924; the amplitude is divided by that factor.
 */
import { LEAD_OFF_AMPS, LEAD_OFF_HZ, PACKET_RATE } from './protocol.js';

/** The Cyton's series resistor on each input, Ω. */
export const SERIES_RESISTOR_OHMS = 2200;

/**
 * The standard deviation (same unit as `samples`) of the component of `samples` at `frequency`
 * Hz, sampled at `rate` Hz: a least-squares fit of a·sin + b·cos + c; σ = √((a² + b²) / 2).
 * `indices` gives each sample's row number when rows are missing (lost packets): the fit then
 * places every sample at its true time instead of closing the gap, which would shift the phase of
 * what follows and shrink the fitted amplitude.
 */
export function toneStd(
  samples: ArrayLike<number>,
  rate: number,
  frequency: number,
  indices?: ArrayLike<number>,
): number {
  const n = samples.length;
  if (n < 3) return Number.NaN;
  // Normal equations of the 3-parameter fit, solved directly (3×3, symmetric).
  let ss = 0;
  let sc = 0;
  let s1 = 0;
  let cc = 0;
  let c1 = 0;
  let ys = 0;
  let yc = 0;
  let y1 = 0;
  const w = (2 * Math.PI * frequency) / rate;
  for (let i = 0; i < n; i++) {
    const t = indices === undefined ? i : (indices[i] as number) - (indices[0] as number);
    const s = Math.sin(w * t);
    const c = Math.cos(w * t);
    const y = samples[i] as number;
    ss += s * s;
    sc += s * c;
    s1 += s;
    cc += c * c;
    c1 += c;
    ys += y * s;
    yc += y * c;
    y1 += y;
  }
  const m = [
    [ss, sc, s1],
    [sc, cc, c1],
    [s1, c1, n],
  ];
  const [a, b] = solve3(m, [ys, yc, y1]);
  return Math.sqrt((a * a + b * b) / 2);
}

function det3(m: number[][]): number {
  const [a, b, c] = m as [number[], number[], number[]];
  return (
    (a[0] as number) * ((b[1] as number) * (c[2] as number) - (b[2] as number) * (c[1] as number)) -
    (a[1] as number) * ((b[0] as number) * (c[2] as number) - (b[2] as number) * (c[0] as number)) +
    (a[2] as number) * ((b[0] as number) * (c[1] as number) - (b[1] as number) * (c[0] as number))
  );
}

/** Cramer's rule; the first two unknowns are enough here. */
function solve3(m: number[][], v: number[]): [number, number] {
  const d = det3(m);
  const column = (k: number): number[][] =>
    m.map((row, i) => row.map((x, j) => (j === k ? (v[i] as number) : x)));
  return [det3(column(0)) / d, det3(column(1)) / d];
}

/**
 * Impedance (Ω) from the µV a channel read with the lead-off current on, at `rate` Hz (250, or
 * 125 with a Daisy, whose two-sample mean is corrected for); `indices`: each sample's row number.
 */
export function leadOffImpedance(
  microvolts: ArrayLike<number>,
  rate: number,
  indices?: ArrayLike<number>,
): number {
  const daisyMean = rate < PACKET_RATE ? Math.cos((Math.PI * LEAD_OFF_HZ) / PACKET_RATE) : 1;
  const sigma = toneStd(microvolts, rate, LEAD_OFF_HZ, indices) / daisyMean;
  const ohms = (Math.SQRT2 * sigma * 1e-6) / LEAD_OFF_AMPS - SERIES_RESISTOR_OHMS;
  return Math.max(0, ohms);
}

/** The sine amplitude (µV, at the electrode) a lead-off measurement of `ohms` reads (the emulator's side). */
export function leadOffAmplitudeMicrovolts(ohms: number): number {
  return (ohms + SERIES_RESISTOR_OHMS) * LEAD_OFF_AMPS * 1e6;
}
