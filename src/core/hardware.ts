/**
 * The headset's hardware facts every layer shares, written once: the sampling frequencies and the
 * programmable gains of its EEG front end (an ADS1299-style ADC). Its electrodes are
 * ./electrodes.ts. The device checks a configuration against these, the `eeg-source` built-ins and
 * quick streams check theirs, the API's schemas and the CLI's help list them.
 */

/** Programmable gains of the ADC front end (ADS1299-style PGA). */
export const EEG_GAINS = [1, 2, 4, 6, 8, 12, 24] as const;
export type EegGain = (typeof EEG_GAINS)[number];

/** Sampling frequencies in Hz. */
export const EEG_SAMPLING_FREQUENCIES = [250, 500, 1000, 2000, 4000, 8000, 16000] as const;
export type EegSamplingFrequency = (typeof EEG_SAMPLING_FREQUENCIES)[number];
