/**
 * The maker's executables' configs mapped onto the built-ins that run them (maker-builtins.ts
 * describes them): plain functions without schemas, so that a stream's worker loads them cheaply.
 */
import type { FilterSpec } from '../../dsp/design.js';
import type { EegSourceConfig } from './eeg-source.js';

/** A finite number from a config, or undefined (the schema has refused any other value). */
function numberOf(config: Record<string, unknown>, key: string): number | undefined {
  const value = config[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** eeg_source's config as eeg-source's, which runs it. */
export function eegSourceConfigOf(config: Record<string, unknown>): EegSourceConfig {
  const { sampleRate, channels, gain } = config as {
    sampleRate?: number;
    channels?: string[];
    gain?: number;
  };
  return {
    ...(channels === undefined ? {} : { channels }),
    ...(sampleRate === undefined ? {} : { samplingFrequency: sampleRate }),
    ...(gain === undefined ? {} : { gain }),
  };
}

/** The band edges of a bandpass_filter, Hz: cutoff ∓ bandwidth / 2. */
export function bandEdges(config: Record<string, unknown>): { low: number; high: number } | undefined {
  const cutoff = numberOf(config, 'cutoff');
  const bandwidth = numberOf(config, 'bandwidth');
  if (cutoff === undefined || bandwidth === undefined) return undefined;
  return { low: cutoff - bandwidth / 2, high: cutoff + bandwidth / 2 };
}

/** bandpass_filter's config as the filter node's design (dsp/design.ts): a Butterworth band-pass. */
export function bandpassSpecOf(config: Record<string, unknown>): FilterSpec {
  const edges = bandEdges(config);
  const order = numberOf(config, 'order');
  return {
    ...(edges === undefined ? {} : { highpass: edges.low, lowpass: edges.high }),
    ...(order === undefined ? {} : { order }),
  };
}
