/**
 * The SSVEP detector as the control plane sees it: `ssvep`, and `ssvep_algo`, the name the
 * headset maker's SDK gives it (its README's stream runs `{"executable": "ssvep_algo", "config":
 * {}}`): one schema and one implementation (./ssvep.ts), every setting with a default so that `{}`
 * is a valid config.
 */
import { Type } from 'typebox';
import { MICROVOLT } from '../../core/frame.js';
import { type BuiltinDescriptor, COMMON_CONFIG, type ConfigIssue, numberOf } from './builtin-descriptor.js';

/**
 * Default candidate frequencies, Hz: the flicker rates a 60 Hz display draws exactly (60/9, 60/8,
 * 60/7, 60/6, 60/5, as the MAMEM SSVEP data sets write them). The maker documents none.
 */
export const DEFAULT_SSVEP_FREQUENCIES = [6.66, 7.5, 8.57, 10, 12] as const;

/** Channels used by default: the occipital and parieto-occipital ones the input has (upper case). */
export const OCCIPITAL_CHANNELS: readonly string[] = [
  'O1',
  'OZ',
  'O2',
  'POZ',
  'PO3',
  'PO4',
  'PO5',
  'PO6',
  'PO7',
  'PO8',
  'O9',
  'O10',
  'IZ',
  'I1',
  'I2',
];

/** The detection rule's defaults per method (docs/builtins.md §ssvep says how they were chosen). */
export const DETECTION_DEFAULTS = {
  cca: { threshold: 0.2, margin: 0.05 },
  fbcca: { threshold: 0.04, margin: 0.02 },
} as const;

export interface SsvepConfig {
  frequencies: number[];
  harmonics: number;
  window: number;
  step: number;
  channels?: string[];
  method: 'cca' | 'fbcca';
  subBands: number;
  threshold: number;
  margin: number;
  consecutive: number;
}

/** A validated config with every default filled in. */
export function ssvepDefaults(config: Partial<SsvepConfig>): SsvepConfig {
  const method = config.method ?? 'cca';
  return {
    frequencies: config.frequencies ?? [...DEFAULT_SSVEP_FREQUENCIES],
    harmonics: config.harmonics ?? 3,
    window: config.window ?? 4,
    step: config.step ?? 0.5,
    ...(config.channels === undefined ? {} : { channels: config.channels }),
    method,
    subBands: config.subBands ?? 5,
    threshold: config.threshold ?? DETECTION_DEFAULTS[method].threshold,
    margin: config.margin ?? DETECTION_DEFAULTS[method].margin,
    consecutive: config.consecutive ?? 3,
  };
}

/** A frequency as its channel's label: `12Hz`, `8.57Hz`. */
export function frequencyLabel(f: number): string {
  return `${f}Hz`;
}

const configSchema = Type.Object(
  {
    ...COMMON_CONFIG,
    frequencies: Type.Optional(
      Type.Array(Type.Number({ exclusiveMinimum: 0, maximum: 1000 }), {
        minItems: 1,
        maxItems: 64,
        default: [...DEFAULT_SSVEP_FREQUENCIES],
        description:
          'Candidate flicker frequencies, Hz, each once and below the input’s Nyquist frequency; each gives an output channel `score.<f>Hz`. Default: 6.66, 7.5, 8.57, 10 and 12 Hz (what a 60 Hz display draws exactly).',
      }),
    ),
    harmonics: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10,
        default: 3,
        description:
          'Harmonics in each reference: sin and cos of 2π·h·f·t for h = 1..harmonics (those at or above Nyquist left out).',
      }),
    ),
    window: Type.Optional(
      Type.Number({
        minimum: 0.1,
        maximum: 30,
        default: 4,
        description: 'Length of each analysed window, s (round(window × rate) samples).',
      }),
    ),
    step: Type.Optional(
      Type.Number({
        minimum: 0.01,
        maximum: 30,
        default: 0.5,
        description:
          'Time from one window to the next, s (round(step × rate) samples): the output has one row per step; at most window.',
      }),
    ),
    channels: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: 64,
        description: `Input channels to analyse (any case), each once. Default: the occipital and parieto-occipital ones the input has (${OCCIPITAL_CHANNELS.join(', ')}): O1 and O2 on the headset.`,
      }),
    ),
    method: Type.Optional(
      Type.Enum(['cca', 'fbcca'], {
        default: 'cca',
        description:
          'cca: each score is the first canonical correlation with the frequency’s reference; fbcca: filter-bank CCA (Chen et al. 2015), the weighted mean of squared correlations over sub-bands.',
      }),
    ),
    subBands: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10,
        default: 5,
        description:
          'fbcca only: sub-bands n = 1..subBands, each [8n − 2, 90] Hz (those that fit below 0.8 × Nyquist).',
      }),
    ),
    threshold: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: `A window is confident when its best score is at least this (and ahead by margin). Default ${DETECTION_DEFAULTS.cca.threshold} (cca), ${DETECTION_DEFAULTS.fbcca.threshold} (fbcca).`,
      }),
    ),
    margin: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: `Least lead of the best score over the second best for a confident window. Default ${DETECTION_DEFAULTS.cca.margin} (cca), ${DETECTION_DEFAULTS.fbcca.margin} (fbcca).`,
      }),
    ),
    consecutive: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        default: 3,
        description:
          'Confident windows in a row with the same best frequency before it is detected (frequency.detected, and the annotation `SSVEP <f> Hz` on the first such window).',
      }),
    ),
  },
  { additionalProperties: false },
);

function check(config: Record<string, unknown>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const frequencies = (config.frequencies as number[] | undefined) ?? [];
  frequencies.forEach((f, i) => {
    if (frequencies.indexOf(f) !== i)
      issues.push({ path: `/frequencies/${i}`, message: `${f} Hz is listed twice` });
  });
  const channels = (config.channels as string[] | undefined) ?? [];
  const upper = channels.map((c) => c.toUpperCase());
  upper.forEach((name, i) => {
    if (upper.indexOf(name) !== i)
      issues.push({ path: `/channels/${i}`, message: `'${channels[i]}' is listed twice` });
  });
  const window = numberOf(config, 'window') ?? 4;
  const step = numberOf(config, 'step') ?? 0.5;
  if (step > window) {
    issues.push({
      path: '/step',
      message: `step (${step} s) is longer than window (${window} s): samples between windows would be analysed by none`,
    });
  }
  if (config.subBands !== undefined && (config.method ?? 'cca') !== 'fbcca') {
    issues.push({ path: '/subBands', message: 'subBands applies to method fbcca only' });
  }
  return issues;
}

function checkAtRate(config: Record<string, unknown>, rate: number): ConfigIssue[] {
  const nyquist = rate / 2;
  const frequencies = (config.frequencies as number[] | undefined) ?? [...DEFAULT_SSVEP_FREQUENCIES];
  const issues: ConfigIssue[] = frequencies.flatMap((f, i) =>
    f < nyquist
      ? []
      : [
          {
            path: config.frequencies === undefined ? '' : `/frequencies/${i}`,
            message: `${f} Hz is at or above the Nyquist frequency (${nyquist} Hz) of its ${rate} Hz input`,
          },
        ],
  );
  if ((config.method ?? 'cca') === 'fbcca' && 6 >= 0.8 * nyquist) {
    issues.push({
      path: '/method',
      message: `no FBCCA sub-band fits at ${rate} Hz (the first, from 6 Hz, needs 0.8 × Nyquist above it)`,
    });
  }
  return issues;
}

const description =
  'SSVEP detection: scores each candidate flicker frequency by CCA (or filter-bank CCA) with sine/cosine references over sliding windows of the occipital channels, and says which one the wearer looks at.';

export const SSVEP_BUILTINS: readonly BuiltinDescriptor[] = [
  {
    name: 'ssvep',
    aliases: [],
    role: 'processor',
    inputs: ['in'],
    outputs: ['out'],
    description,
    configSchema,
    check,
    checkAtRate,
    // Correlations of EEG with sines: the input must be the EEG itself.
    needs: { units: MICROVOLT },
    outputUnits: () => ['1', 'Hz'],
  },
  {
    name: 'ssvep_algo',
    aliases: [],
    role: 'processor',
    inputs: ['in'],
    outputs: ['out'],
    description: `The headset maker's name for \`ssvep\` (same config, defaults and output). ${description}`,
    configSchema,
    check,
    checkAtRate,
    // Correlations of EEG with sines: the input must be the EEG itself.
    needs: { units: MICROVOLT },
    outputUnits: () => ['1', 'Hz'],
  },
];
