/**
 * The descriptors of the computing built-ins `band-power` and `resample` (their implementations:
 * band-power.ts, resample.ts), listed in builtins.ts.
 */
import { Type } from 'typebox';
import { MICROVOLT } from '../../core/frame.js';
import { MAX_RESAMPLE_FACTOR, rationalRatio, reducedRatio } from '../../dsp/resample.js';
import { WELCH_WINDOWS } from '../../dsp/welch.js';
import {
  BAND_POWER_DEFAULTS,
  bandPowerDesign,
  bandPowerIssues,
  bandPowerRate,
  DEFAULT_BANDS,
  MAX_WINDOW_SAMPLES,
} from './band-power-design.js';
import { type BuiltinDescriptor, COMMON_CONFIG, type ConfigIssue, numberOf } from './builtin-descriptor.js';

const seconds = (description: string, defaultValue: number) =>
  Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600, default: defaultValue, description }));

const bandPower: BuiltinDescriptor = {
  name: 'band-power',
  aliases: [],
  role: 'processor',
  inputs: ['in'],
  outputs: ['out'],
  description:
    'Power per channel in named frequency bands over a sliding window: Welch PSD (scipy.signal.welch) integrated by the trapezoid rule over each band; one frame per step, channels `<channel>.<band>`, in µV², as a fraction of the total (1) or in dB.',
  configSchema: Type.Object(
    {
      ...COMMON_CONFIG,
      window: seconds(
        `Length of the window each value is computed over, s (rounded to whole samples; at most ${MAX_WINDOW_SAMPLES} samples per channel). The first value comes once a whole window has arrived.`,
        BAND_POWER_DEFAULTS.window,
      ),
      step: seconds(
        'Time from one value to the next, s: a whole number of input samples; the output rate is 1/step.',
        BAND_POWER_DEFAULTS.step,
      ),
      segment: seconds(
        "Welch segment length, s: nperseg = round(segment × rate) samples, at most the window's; the PSD's resolution is rate / nperseg Hz.",
        BAND_POWER_DEFAULTS.segment,
      ),
      overlap: Type.Optional(
        Type.Number({
          minimum: 0,
          maximum: 0.99,
          default: BAND_POWER_DEFAULTS.overlap,
          description:
            'Overlap of consecutive Welch segments as a fraction of a segment: noverlap = ⌊overlap × nperseg⌋.',
        }),
      ),
      windowFunction: Type.Optional(
        Type.Enum(WELCH_WINDOWS, {
          default: BAND_POWER_DEFAULTS.windowFunction,
          description:
            "Window applied to each segment, scipy's get_window (periodic): hann, hamming, blackman or boxcar (none).",
        }),
      ),
      detrend: Type.Optional(
        Type.Enum(['constant', 'none'], {
          default: BAND_POWER_DEFAULTS.detrend,
          description:
            "constant: each segment's mean is removed before the window (scipy's default); none: not.",
        }),
      ),
      bands: Type.Optional(
        Type.Array(
          Type.Object(
            {
              name: Type.String({
                pattern: '^[A-Za-z][A-Za-z0-9_-]{0,31}$',
                description: 'Name of the band, the suffix of its output channels.',
              }),
              low: Type.Number({ minimum: 0, description: 'Low edge, Hz (included).' }),
              high: Type.Number({
                exclusiveMinimum: 0,
                description: 'High edge, Hz (included); at most the input’s Nyquist frequency.',
              }),
            },
            { additionalProperties: false },
          ),
          {
            minItems: 1,
            maxItems: 32,
            default: DEFAULT_BANDS,
            description:
              'Bands as {name, low, high}, Hz, each integrated over the PSD bins f with low ≤ f ≤ high (neighbours share their edge bin); each must hold at least 2 bins. Output channels follow their order.',
          },
        ),
      ),
      measure: Type.Optional(
        Type.Enum(['absolute', 'relative'], {
          default: BAND_POWER_DEFAULTS.measure,
          description:
            'absolute: the band power, µV²; relative: the band power divided by the power between totalLow and totalHigh (unit 1).',
        }),
      ),
      totalLow: Type.Optional(
        Type.Number({
          minimum: 0,
          description: 'relative only: low edge of the total, Hz. Default: the lowest band edge.',
        }),
      ),
      totalHigh: Type.Optional(
        Type.Number({
          exclusiveMinimum: 0,
          description: 'relative only: high edge of the total, Hz. Default: the highest band edge.',
        }),
      ),
      db: Type.Optional(
        Type.Boolean({
          default: BAND_POWER_DEFAULTS.db,
          description:
            'Output 10·log10 of the value (dB re 1 µV², or of the fraction for relative); unit dB.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  check: (config) => bandPowerIssues(config),
  // Power of EEG: a band power of a band power, or of a score, means nothing.
  needs: { units: MICROVOLT },
  outputUnits: (config) => [config.db === true ? 'dB' : config.measure === 'relative' ? '1' : 'µV²'],
  outputRateAt: (config, rate) => bandPowerRate(config, rate),
  checkAtRate: (config, rate) => bandPowerDesign(config, rate).issues,
};

export interface ResampleConfig {
  sampleRate?: number;
  up?: number;
  down?: number;
}

/** The up/down of a resample config at an input rate (not yet reduced), or the defect. */
export function resampleRatio(
  config: ResampleConfig,
  rate: number,
): { ratio: { up: number; down: number }; issues: [] } | { ratio: undefined; issues: ConfigIssue[] } {
  try {
    if (config.sampleRate !== undefined) return { ratio: rationalRatio(rate, config.sampleRate), issues: [] };
    const ratio = { up: config.up ?? 1, down: config.down ?? 1 };
    reducedRatio(ratio.up, ratio.down);
    return { ratio, issues: [] };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return {
      ratio: undefined,
      issues: [
        {
          path: config.sampleRate !== undefined ? '/sampleRate' : '/up',
          message: `${error.message} (input ${rate} Hz); choose an output rate whose ratio to the input's reduces to up/down with both at most ${MAX_RESAMPLE_FACTOR}`,
        },
      ],
    };
  }
}

const resample: BuiltinDescriptor = {
  name: 'resample',
  aliases: [],
  role: 'processor',
  inputs: ['in'],
  outputs: ['out'],
  description:
    'Changes the sample rate by any ratio up/down, as scipy.signal.resample_poly does (polyphase FIR, Kaiser window β 5, 20·max(up, down) + 1 taps); time stamps account for the filter’s delay.',
  configSchema: Type.Object(
    {
      ...COMMON_CONFIG,
      sampleRate: Type.Optional(
        Type.Number({
          minimum: 0.001,
          maximum: 100000,
          description: `Output rate, Hz (to 1 mHz); with the input's rate it must reduce to up/down with both at most ${MAX_RESAMPLE_FACTOR}. Instead of up and down.`,
        }),
      ),
      up: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: MAX_RESAMPLE_FACTOR,
          description:
            'Upsampling factor: the output rate is the input rate × up / down. With down, instead of sampleRate.',
        }),
      ),
      down: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: MAX_RESAMPLE_FACTOR,
          description: 'Downsampling factor (see up).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  check(config) {
    const { sampleRate, up, down } = config as ResampleConfig;
    if (sampleRate !== undefined && (up !== undefined || down !== undefined)) {
      return [
        {
          path: up !== undefined ? '/up' : '/down',
          message: 'give either sampleRate or up and down, not both',
        },
      ];
    }
    if (sampleRate === undefined && (up === undefined || down === undefined)) {
      return [
        {
          path: up === undefined ? '/up' : '/down',
          message: 'resample needs sampleRate, or both up and down',
        },
      ];
    }
    return [];
  },
  outputRate: (config) => numberOf(config, 'sampleRate'),
  keepsUnits: true,
  outputChannels: (_config, input) => input,
  outputRateAt: (config, rate) => {
    const { up, down } = config as ResampleConfig;
    return up === undefined || down === undefined ? undefined : (rate * up) / down;
  },
  checkAtRate: (config, rate) => resampleRatio(config, rate).issues,
};

export const SPECTRAL_BUILTINS: readonly BuiltinDescriptor[] = [bandPower, resample];
