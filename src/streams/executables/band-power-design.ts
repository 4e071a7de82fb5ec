/**
 * The `band-power` node's config at one input rate: the window, step and Welch segment in whole
 * samples, and the PSD bins each band integrates. One function answers both the check made when a
 * stream is created (the input rate known beforehand, streams/rates.ts) and the node's design on
 * its first frame, so that the two can never disagree; each defect names the config key at fault.
 */
import { bandBins, type WelchDetrend, type WelchWindow } from '../../dsp/welch.js';
import type { ConfigIssue } from './builtin-descriptor.js';

export interface BandSpec {
  name: string;
  low: number;
  high: number;
}

/** The usual EEG bands, Hz (both edges included; neighbours share their edge bin). */
export const DEFAULT_BANDS: readonly BandSpec[] = [
  { name: 'delta', low: 1, high: 4 },
  { name: 'theta', low: 4, high: 8 },
  { name: 'alpha', low: 8, high: 13 },
  { name: 'beta', low: 13, high: 30 },
  { name: 'gamma', low: 30, high: 45 },
];

export const BAND_POWER_DEFAULTS = {
  window: 2,
  step: 0.5,
  segment: 1,
  overlap: 0.5,
  windowFunction: 'hann' as WelchWindow,
  detrend: 'constant' as WelchDetrend,
  measure: 'absolute' as 'absolute' | 'relative',
  db: false,
};

/** Samples per channel a window may hold (2¹⁸: 1 MiB of float32 per channel, e.g. 60 s at 4 kHz). */
export const MAX_WINDOW_SAMPLES = 2 ** 18;

export interface BandPowerConfig {
  window?: number;
  step?: number;
  segment?: number;
  overlap?: number;
  windowFunction?: WelchWindow;
  detrend?: WelchDetrend;
  bands?: BandSpec[];
  measure?: 'absolute' | 'relative';
  totalLow?: number;
  totalHigh?: number;
  db?: boolean;
}

export interface BandPowerDesign {
  sampleRate: number;
  windowSamples: number;
  stepSamples: number;
  nperseg: number;
  noverlap: number;
  windowFunction: WelchWindow;
  detrend: WelchDetrend;
  /** Each band with the PSD bins it integrates. */
  bands: (BandSpec & { first: number; count: number })[];
  /** The bins of the total a relative power divides by; undefined for absolute power. */
  total: { first: number; count: number } | undefined;
  db: boolean;
  /** The unit of every output channel. */
  unit: string;
}

/** Checks of the config alone (no rate): edges in order, names unique, the total range. */
export function bandPowerIssues(config: BandPowerConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const bands = config.bands ?? DEFAULT_BANDS;
  const seen = new Set<string>();
  bands.forEach((band, i) => {
    if (band.low >= band.high) {
      issues.push({
        path: `/bands/${i}/high`,
        message: `band '${band.name}' must end above its low edge (${band.low} Hz)`,
      });
    }
    if (seen.has(band.name))
      issues.push({ path: `/bands/${i}/name`, message: `band '${band.name}' is named twice` });
    seen.add(band.name);
  });
  const { totalLow, totalHigh } = totalRange(config);
  if (totalLow >= totalHigh) {
    issues.push({
      path: '/totalHigh',
      message: `totalHigh (${totalHigh} Hz) must be above totalLow (${totalLow} Hz)`,
    });
  }
  if (
    (config.totalLow !== undefined || config.totalHigh !== undefined) &&
    (config.measure ?? 'absolute') !== 'relative'
  ) {
    issues.push({
      path: config.totalLow !== undefined ? '/totalLow' : '/totalHigh',
      message:
        'totalLow and totalHigh bound the total of a relative power; set measure: relative or leave them out',
    });
  }
  return issues;
}

/** The range a relative power divides by: by default from the lowest band edge to the highest. */
function totalRange(config: BandPowerConfig): { totalLow: number; totalHigh: number } {
  const bands = config.bands ?? DEFAULT_BANDS;
  return {
    totalLow: config.totalLow ?? Math.min(...bands.map((b) => b.low)),
    totalHigh: config.totalHigh ?? Math.max(...bands.map((b) => b.high)),
  };
}

/** Seconds to whole samples at `rate`: the nearest whole number. */
function samples(seconds: number, rate: number): number {
  return Math.round(seconds * rate);
}

/** The design at an input rate, or the defects that make the config impossible at it. */
export function bandPowerDesign(
  config: BandPowerConfig,
  rate: number,
): { design: BandPowerDesign; issues: [] } | { design: undefined; issues: ConfigIssue[] } {
  const c = { ...BAND_POWER_DEFAULTS, ...config };
  const issues: ConfigIssue[] = [];
  const windowSamples = samples(c.window, rate);
  const stepSamples = samples(c.step, rate);
  const nperseg = samples(c.segment, rate);
  const noverlap = Math.floor(c.overlap * nperseg);
  const nyquist = rate / 2;
  if (windowSamples > MAX_WINDOW_SAMPLES) {
    issues.push({
      path: '/window',
      message: `a window of ${c.window} s is ${windowSamples} samples at ${rate} Hz; at most ${MAX_WINDOW_SAMPLES} samples per channel are kept (${(MAX_WINDOW_SAMPLES / rate).toFixed(3)} s at this rate)`,
    });
  }
  if (stepSamples < 1) {
    issues.push({ path: '/step', message: `a step of ${c.step} s is less than one sample at ${rate} Hz` });
  } else if (Math.abs(c.step * rate - stepSamples) > 1e-6) {
    // The step sets the output rate: rounded, the rate would not be the 1/step asked for.
    issues.push({
      path: '/step',
      message: `a step of ${c.step} s is ${c.step * rate} samples at ${rate} Hz; it must be a whole number of samples (the output rate is 1/step): ${stepSamples} samples is ${stepSamples / rate} s`,
    });
  }
  if (nperseg < 2) {
    issues.push({
      path: '/segment',
      message: `a segment of ${c.segment} s is fewer than 2 samples at ${rate} Hz`,
    });
  } else if (nperseg > windowSamples) {
    issues.push({
      path: '/segment',
      message: `a Welch segment of ${c.segment} s (${nperseg} samples) is longer than the window of ${c.window} s (${windowSamples} samples) at ${rate} Hz; make the segment at most the window`,
    });
  }
  const frequencies = Float64Array.from(
    { length: Math.floor(Math.max(nperseg, 2) / 2) + 1 },
    (_, k) => (k * rate) / Math.max(nperseg, 2),
  );
  const resolution = rate / Math.max(nperseg, 2);
  const binsOf = (
    low: number,
    high: number,
    path: string,
    highPath: string,
    what: string,
  ): { first: number; count: number } => {
    if (high > nyquist) {
      issues.push({
        path: highPath,
        message: `${what} ends at ${high} Hz, above the Nyquist frequency (${nyquist} Hz) of its ${rate} Hz input`,
      });
    }
    const bins = bandBins(frequencies, low, high);
    if (bins.count < 2 && high <= nyquist && nperseg >= 2) {
      issues.push({
        path,
        message: `${what} (${low}–${high} Hz) holds ${bins.count} PSD bin(s) at a resolution of ${resolution} Hz (segment ${c.segment} s at ${rate} Hz); it needs at least 2: widen it or lengthen the segment`,
      });
    }
    return bins;
  };
  const bands = c.bands ?? DEFAULT_BANDS;
  const designed = bands.map((band, i) => ({
    ...band,
    ...binsOf(band.low, band.high, `/bands/${i}`, `/bands/${i}/high`, `band '${band.name}'`),
  }));
  let total: { first: number; count: number } | undefined;
  if (c.measure === 'relative') {
    const { totalLow, totalHigh } = totalRange(config);
    const path = config.totalHigh === undefined ? '/bands' : '/totalHigh';
    total = binsOf(totalLow, totalHigh, path, path, 'the total range');
  }
  if (issues.length > 0) return { design: undefined, issues };
  return {
    design: {
      sampleRate: rate,
      windowSamples,
      stepSamples,
      nperseg,
      noverlap,
      windowFunction: c.windowFunction,
      detrend: c.detrend,
      bands: designed,
      total,
      db: c.db,
      unit: c.db ? 'dB' : c.measure === 'relative' ? '1' : 'µV²',
    },
    issues: [],
  };
}

/** The node's output rate at an input rate: one value per step, 1/step. */
export function bandPowerRate(config: BandPowerConfig, rate: number): number | undefined {
  const step = config.step ?? BAND_POWER_DEFAULTS.step;
  return samples(step, rate) >= 1 ? 1 / step : undefined;
}
