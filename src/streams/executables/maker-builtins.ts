/**
 * The headset maker's own processing executables, by the names and config keys its SDK's examples
 * use (docs/instinct-sdk.md §Streams, docs/builtins.md): `eeg_source` and `bandpass_filter`. Each
 * is a second face of a headsetd built-in, not a second mechanism: its config is mapped onto the
 * built-in's (maker-configs.ts) and the built-in's node runs it.
 */
import { Type } from 'typebox';
import { MAX_CHANNEL_NAME, MAX_DEVICE_CHANNELS } from '../../core/channel-names.js';
import { EEG_ELECTRODES } from '../../core/electrodes.js';
import { MAX_BUTTERWORTH_ORDER } from '../../dsp/butterworth.js';
import { DEFAULT_FILTER_ORDER } from '../../dsp/design.js';
import { type BuiltinDescriptor, COMMON_CONFIG, type ConfigIssue, numberOf } from './builtin-descriptor.js';
import { channelListIssues } from './eeg-source-config.js';
import { EEG_GAINS, EEG_SAMPLING_FREQUENCIES } from '../../core/hardware.js';
import { bandEdges } from './maker-configs.js';

const makerEegSource: BuiltinDescriptor = {
  name: 'eeg_source',
  aliases: [],
  role: 'source',
  inputs: [],
  outputs: ['out'],
  description:
    "The maker's name for the headset's EEG acquisition, in microvolts: eeg-source with the maker's keys.",
  configSchema: Type.Object(
    {
      ...COMMON_CONFIG,
      sampleRate: Type.Optional(
        Type.Enum(EEG_SAMPLING_FREQUENCIES, {
          description: `Output rate, Hz: one the headset can give (${EEG_SAMPLING_FREQUENCIES.join(', ')}). Acquisition starts at it when idle; when it already runs at another rate the node resamples to it (eeg-source's samplingFrequency). Default: the device's rate.`,
        }),
      ),
      channels: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: MAX_CHANNEL_NAME }), {
          minItems: 1,
          maxItems: MAX_DEVICE_CHANNELS,
          description: `Electrode names in any case (PZ is Pz), each once, checked against the device's channels as eeg-source's are: on the headset ${EEG_ELECTRODES.join(' ')}. Frames name them as the device does (Pz). Default: the channels the device acquires when the node starts.`,
        }),
      ),
      gain: Type.Optional(
        Type.Enum(EEG_GAINS, {
          description: `The amplifier's programmable gain (${EEG_GAINS.join(', ')}), the gain acquisition starts at when this node starts it; acquisition already running (another stream, or /system) keeps the gain it runs at. Samples are µV whatever the gain: it sets only the resolution (4.5 V / gain / 2^23 per step) and the full scale (±4.5 V / gain, which frames carry as their range). Default: the device's gain. A device whose amplifier has no gain of ours to set (LSL) takes only 1, and refuses another when the node starts.`,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  check: (config, context) => channelListIssues(config.channels as string[] | undefined, context),
  subscribedChannels: (config) => (config.channels as string[] | undefined) ?? [],
  outputRate: (config) => numberOf(config, 'sampleRate'),
  // Without channels the node takes what the device acquires when it starts.
  outputChannels: (config) => config.channels as string[] | undefined,
};

const bandpassFilter: BuiltinDescriptor = {
  name: 'bandpass_filter',
  aliases: [],
  role: 'processor',
  inputs: ['in'],
  outputs: ['out'],
  description:
    "The maker's band-pass by centre and width: a causal Butterworth band-pass from cutoff − bandwidth/2 to cutoff + bandwidth/2 (the filter node's design).",
  configSchema: Type.Object(
    {
      ...COMMON_CONFIG,
      cutoff: Type.Number({
        exclusiveMinimum: 0,
        description: 'Centre of the pass band, Hz.',
      }),
      bandwidth: Type.Number({
        exclusiveMinimum: 0,
        description:
          'Width of the pass band, Hz, between its −3 dB edges cutoff − bandwidth/2 and cutoff + bandwidth/2; the lower edge must be above 0 Hz and the upper below the input’s Nyquist frequency.',
      }),
      order: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: MAX_BUTTERWORTH_ORDER,
          default: DEFAULT_FILTER_ORDER,
          description:
            "Butterworth order N of scipy's butter(N, [low, high], 'bandpass'): the band-pass has 2N poles (N per edge), N second-order sections.",
        }),
      ),
    },
    { additionalProperties: false },
  ),
  check(config) {
    const edges = bandEdges(config);
    if (edges === undefined || edges.low > 0) return [];
    const issue: ConfigIssue = {
      path: '/bandwidth',
      message: `bandwidth ${String(config.bandwidth)} Hz around cutoff ${String(config.cutoff)} Hz puts the lower edge at ${edges.low} Hz; it must be above 0 Hz: use a bandwidth below ${2 * (config.cutoff as number)} Hz`,
    };
    return [issue];
  },
  keepsRate: true,
  keepsUnits: true,
  outputChannels: (_config, input) => input,
  // Known before the stream runs (streams/rates.ts): a band reaching Nyquist cannot be designed,
  // and the node would go to `error` on its first frame.
  checkAtRate(config, rate) {
    const edges = bandEdges(config);
    const nyquist = rate / 2;
    if (edges === undefined || edges.high < nyquist) return [];
    return [
      {
        path: '/cutoff',
        message: `cutoff ${String(config.cutoff)} Hz + bandwidth/2 puts the upper edge at ${edges.high} Hz, at or above the Nyquist frequency (${nyquist} Hz) of its ${rate} Hz input; the upper edge must be below ${nyquist} Hz`,
      },
    ];
  },
};

export const MAKER_BUILTINS: readonly BuiltinDescriptor[] = [makerEegSource, bandpassFilter];
