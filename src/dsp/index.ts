/**
 * The signal-processing layer's public surface (see sos.ts for the overview): scipy-identical
 * Butterworth/notch design and sosfilt, the filter node's design, spectra and resampling.
 */

export { type BandType, butterworth, MAX_BUTTERWORTH_ORDER } from './butterworth.js';
export { DEFAULT_FILTER_ORDER, DEFAULT_NOTCH_Q, designFilter, type FilterSpec } from './design.js';
export { cascade, notch } from './notch.js';
export { Resampler } from './resample.js';
export { type Sos, SosFilter, sosfilt } from './sos.js';
export { bandPower, toneAmplitude, welch } from './spectrum.js';
