/**
 * The built-in executables as the control plane sees them: name, aliases, role, ports and config
 * schema (docs/api.md §Built-in executables). Validation and OpenAPI read these; the runtime pairs
 * each name with its implementation in factories.ts.
 */
import { Type } from 'typebox';
import { MAX_CHANNEL_NAME, MAX_DEVICE_CHANNELS } from '../../core/channel-names.js';
import { EEG_ELECTRODES } from '../../core/electrodes.js';
import { DEFAULT_FILTER_ORDER, DEFAULT_NOTCH_Q } from '../../dsp/design.js';
import { formatOfName, MAX_FILENAME_BYTES, recordingNameProblem } from '../../recordings/paths.js';
import { type BuiltinDescriptor, COMMON_CONFIG, type ConfigIssue, numberOf } from './builtin-descriptor.js';
import { channelListIssues } from './eeg-source-config.js';
import { EEG_SAMPLING_FREQUENCIES } from '../../core/hardware.js';
import { ERP_BUILTINS } from './erp-descriptors.js';
import { LSL_BUILTINS } from './lsl-builtins.js';
import { MAKER_BUILTINS } from './maker-builtins.js';
import { SPECTRAL_BUILTINS } from './spectral-descriptors.js';
import { osc } from './osc-descriptor.js';
import { SSVEP_BUILTINS } from './ssvep-descriptor.js';
import { MICROVOLT } from '../../core/frame.js';

export {
  type BuiltinDescriptor,
  COMMON_CONFIG,
  type ConfigIssue,
  EXTERNAL_CONFIG,
  type NodeRole,
} from './builtin-descriptor.js';

const signalGenerator: BuiltinDescriptor = {
  name: 'signal-generator',
  aliases: ['SignalGenerator'],
  role: 'source',
  inputs: [],
  outputs: ['out'],
  description: 'Sums sines (plus optional white noise) on every channel, in real time.',
  configSchema: Type.Object(
    {
      ...COMMON_CONFIG,
      sampleRate: Type.Number({
        minimum: 1,
        maximum: 20000,
        description: 'Samples per second per channel, Hz.',
      }),
      amplitudes: Type.Array(Type.Number(), {
        minItems: 1,
        maxItems: 64,
        description:
          'Peak amplitude of each sine, in the unit of the output (µV for EEG-like data); paired one to one with frequencies.',
      }),
      frequencies: Type.Array(Type.Number({ minimum: 0 }), {
        minItems: 1,
        maxItems: 64,
        description: 'Frequency of each sine, Hz: each below sampleRate / 2.',
      }),
      channels: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 64,
          default: 1,
          description: 'Number of channels; each carries the same sum of sines.',
        }),
      ),
      noise: Type.Optional(
        Type.Number({
          minimum: 0,
          default: 0,
          description:
            'RMS of the white Gaussian noise added to every sample (clamped at ±6σ), same unit as amplitudes.',
        }),
      ),
      channelNames: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
          maxItems: 64,
          description: 'One name per channel; default ch1, ch2, …',
        }),
      ),
      seed: Type.Optional(
        Type.Integer({ description: 'Seed of the noise, for repeatable runs; default a random one.' }),
      ),
    },
    { additionalProperties: false },
  ),
  check(config) {
    const issues: ConfigIssue[] = [];
    const amplitudes = config.amplitudes as number[];
    const frequencies = config.frequencies as number[];
    if (amplitudes.length !== frequencies.length) {
      issues.push({
        path: '/frequencies',
        message: `frequencies has ${frequencies.length} values and amplitudes ${amplitudes.length}; they must pair up`,
      });
    }
    const sampleRate = config.sampleRate as number;
    frequencies.forEach((f, i) => {
      if (f >= sampleRate / 2) {
        issues.push({
          path: `/frequencies/${i}`,
          message: `${f} Hz is at or above the Nyquist frequency (${sampleRate / 2} Hz) of sampleRate ${sampleRate}`,
        });
      }
    });
    const names = config.channelNames as string[] | undefined;
    const channels = (config.channels as number | undefined) ?? 1;
    if (names !== undefined && names.length !== channels) {
      issues.push({
        path: '/channelNames',
        message: `channelNames has ${names.length} names for ${channels} channel(s)`,
      });
    }
    return issues;
  },
  outputRate: (config) => numberOf(config, 'sampleRate'),
  outputChannels(config) {
    const names = config.channelNames as string[] | undefined;
    const count = (config.channels as number | undefined) ?? 1;
    return names ?? Array.from({ length: count }, (_, i) => `ch${i + 1}`);
  },
  outputUnits: () => [MICROVOLT],
};

const eegSource: BuiltinDescriptor = {
  name: 'eeg-source',
  aliases: ['EegSource', 'EEGSource'],
  role: 'source',
  inputs: [],
  outputs: ['out'],
  description: "The headset's EEG acquisition, in microvolts.",
  configSchema: Type.Object(
    {
      ...COMMON_CONFIG,
      channels: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: MAX_CHANNEL_NAME }), {
          minItems: 1,
          maxItems: MAX_DEVICE_CHANNELS,
          description: `The device's channel names (GET /system/status channels.played), any case, each once: on the headset its EEG electrodes ${EEG_ELECTRODES.join(' ')}; on a live amplifier its own channels (TP9, AF7, EXG Channel 3). Frames name them as the device does (Fp1, Cz, TP9) and always carry every one: a name the device does not play is refused when the stream is made or edited (422 validation_failed pointing at the name; headsetd validate, which knows no device, takes any name and the node's start refuses it), channels it does not acquire at start (409 channels_unavailable), and frames are held back (the stream degraded) while the device stops acquiring one. Default: the channels the device acquires when the node starts (on the headset all ${EEG_ELECTRODES.length} unless configured otherwise), kept while it runs.`,
        }),
      ),
      samplingFrequency: Type.Optional(
        Type.Enum(EEG_SAMPLING_FREQUENCIES, {
          description:
            "Output rate, Hz; the node resamples when acquisition runs at another rate. Default: the device's rate.",
        }),
      ),
      frameMs: Type.Optional(
        Type.Number({
          minimum: 1,
          maximum: 1000,
          description:
            "Duration of the frames this node emits, ms: the device's frames (about 10 ms each) are joined into frames of round(rate × frameMs / 1000) rows (at least one), each sent when its last row arrives (so up to frameMs later), never across a gap. Fewer, longer frames cost the headset less CPU per second (each frame costs the stream's nodes a turn and a socket write whatever its size): for recorders and displays that do not need the device's frames as they come. Default: the device's frames.",
        }),
      ),
    },
    { additionalProperties: false },
  ),
  check: (config, context) => channelListIssues(config.channels as string[] | undefined, context),
  subscribedChannels: (config) => (config.channels as string[] | undefined) ?? [],
  // Without samplingFrequency the node follows the device's rate, which can change at any time.
  outputRate: (config) => numberOf(config, 'samplingFrequency'),
  // Without channels the node takes what the device acquires when it starts.
  outputChannels: (config) => config.channels as string[] | undefined,
};

const filter: BuiltinDescriptor = {
  name: 'filter',
  aliases: ['Filter', 'ButterworthFilter'],
  role: 'processor',
  inputs: ['in'],
  outputs: ['out'],
  description: 'Causal Butterworth high/low/band-pass and notch, in second-order sections.',
  configSchema: Type.Object(
    {
      ...COMMON_CONFIG,
      highpass: Type.Optional(
        Type.Number({
          exclusiveMinimum: 0,
          description:
            'High-pass cut-off, Hz (−3 dB); with lowpass, a band-pass. Below the input’s Nyquist frequency.',
        }),
      ),
      lowpass: Type.Optional(
        Type.Number({
          exclusiveMinimum: 0,
          description:
            'Low-pass cut-off, Hz (−3 dB); above highpass when both are given. Below the input’s Nyquist frequency.',
        }),
      ),
      order: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 8,
          default: DEFAULT_FILTER_ORDER,
          description: 'Butterworth order; a band-pass of order N has 2N poles, as in scipy.',
        }),
      ),
      notch: Type.Optional(
        Type.Number({
          exclusiveMinimum: 0,
          description: 'Centre of a notch, Hz (typically 50 or 60). Below the input’s Nyquist frequency.',
        }),
      ),
      notchQ: Type.Optional(
        Type.Number({
          exclusiveMinimum: 0,
          maximum: 1000,
          default: DEFAULT_NOTCH_Q,
          description: 'Quality factor of the notch: its centre frequency over its −3 dB width.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  check(config) {
    const { highpass, lowpass, notch } = config as { highpass?: number; lowpass?: number; notch?: number };
    const issues: ConfigIssue[] = [];
    if (highpass === undefined && lowpass === undefined && notch === undefined) {
      issues.push({ path: '', message: 'a filter needs at least one of highpass, lowpass or notch' });
    }
    if (highpass !== undefined && lowpass !== undefined && highpass >= lowpass) {
      issues.push({
        path: '/highpass',
        message: `highpass (${highpass} Hz) must be below lowpass (${lowpass} Hz) for a band-pass`,
      });
    }
    return issues;
  },
  keepsRate: true,
  // A filter changes no unit: what comes in (µV, m/s², µV²) goes out in the same unit.
  keepsUnits: true,
  // The design needs every frequency below Nyquist (dsp/design.ts); at run time the node would go
  // to `error` on its first frame and every frame through it would be lost.
  checkAtRate(config, rate) {
    const nyquist = rate / 2;
    return (['highpass', 'lowpass', 'notch'] as const).flatMap((field) => {
      const hz = numberOf(config, field);
      return hz === undefined || hz < nyquist
        ? []
        : [
            {
              path: `/${field}`,
              message: `${field} ${hz} Hz is at or above the Nyquist frequency (${nyquist} Hz) of its ${rate} Hz input; use a frequency below ${nyquist} Hz`,
            },
          ];
    });
  },
  outputChannels: (_config, input) => input,
};

const websocket: BuiltinDescriptor = {
  name: 'websocket',
  aliases: ['WebSocket', 'Websocket', 'WebSocketOutput'],
  role: 'sink',
  inputs: ['in'],
  outputs: [],
  description: 'Serves every frame to any number of WebSocket clients on its own port.',
  configSchema: Type.Object(
    {
      ...COMMON_CONFIG,
      port: Type.Integer({
        minimum: 0,
        maximum: 65535,
        description: "TCP port to serve on; 0 picks a free one, shown as `port` in the node's status.",
      }),
      host: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 255,
          default: '127.0.0.1',
          description: 'Address to listen on; beyond loopback the API token is required of clients.',
        }),
      ),
      format: Type.Optional(
        Type.Enum(['json', 'binary'], {
          default: 'json',
          description:
            'json: one text message per frame (NaN and ±Infinity as the strings "NaN", "Infinity", "-Infinity"); binary: one binary message per frame (docs/api.md §Frames).',
        }),
      ),
      clientBufferBytes: Type.Optional(
        Type.Integer({
          minimum: 16 * 1024,
          maximum: 64 * 1024 * 1024,
          default: 1024 * 1024,
          description:
            'Unsent bytes a client may hold before it skips frames (default 1 MiB): the memory one slow client can take.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
};

const recorder: BuiltinDescriptor = {
  name: 'recorder',
  aliases: ['Recorder', 'FileRecorder'],
  role: 'sink',
  inputs: ['in'],
  outputs: [],
  description: 'Writes frames to `<data-dir>/recordings` as EDF+, BDF+ or CSV.',
  configSchema: Type.Object(
    {
      ...COMMON_CONFIG,
      // The name's rules (bytes, characters) are checked by `check` below, in one clear message.
      filename: Type.String({
        minLength: 1,
        description: `A plain file name, no path: 1 to ${MAX_FILENAME_BYTES} bytes in UTF-8, not starting with '.', without '/', '\\', '..' or control characters (DEL and NUL included). \`.<format>\` is added when the name has no extension (\`run1\` with format edf: \`run1.edf\`); a name whose extension says another format than \`format\` is refused.`,
      }),
      format: Type.Optional(
        Type.Enum(['csv', 'edf', 'bdf'], {
          description:
            "File format: EDF+ (16-bit), BDF+ (24-bit) or CSV. Default: the filename's extension, else edf.",
        }),
      ),
      includeTimestamps: Type.Optional(
        Type.Boolean({
          default: false,
          description: 'CSV only: a first column with each sample’s time, ms since the epoch.',
        }),
      ),
      physicalRange: Type.Optional(
        Type.Number({
          minimum: 0.001,
          maximum: 99_999_999,
          description:
            'EDF/BDF only, µV: every channel in µV keeps −physicalRange to +physicalRange (one EDF step is about 2 × physicalRange / 65534, one BDF step 2 × physicalRange / 16777214; the header’s minimum is one step lower, its digital minimum being “no value” for NaN and ±Infinity); values beyond it are clipped, counted, annotated and reported. Default: chosen from the frames (docs/recording.md §Physical range): ±3276.7 µV (0.1 µV steps) in EDF after a filter that removes DC, else the frames’ range, else ±187500 µV.',
        }),
      ),
      unitRanges: Type.Optional(
        Type.Record(
          Type.String({ minLength: 1, maxLength: 32 }),
          Type.Number({ minimum: 0.001, maximum: 99_999_999 }),
          {
            description:
              'EDF/BDF only: for channels in a unit other than µV (frames’ units: an accelerometer in g, a band power in µV², dB), the physical range ± this, by unit: {"g": 8, "dB": 100}. Default: the frames’ range when every channel is in that unit, else the unit’s usual full scale (g ±16, m/s² ±160, dB ±300, 1 ±100, µV² ±10000000; docs/recording.md §Units), else ±187500.',
          },
        ),
      ),
    },
    { additionalProperties: false },
  ),
  check(config) {
    const { filename, format, physicalRange, unitRanges } = config as {
      filename: string;
      format?: string;
      physicalRange?: number;
      unitRanges?: Record<string, number>;
    };
    const problem = recordingNameProblem({ filename, format });
    if (problem !== undefined) return [{ path: '/filename', message: problem }];
    const csv = (format ?? formatOfName(filename)) === 'csv';
    if (physicalRange !== undefined && csv) {
      return [
        {
          path: '/physicalRange',
          message:
            'physicalRange applies to EDF and BDF recordings; a CSV recording keeps every float32 value as it is',
        },
      ];
    }
    if (unitRanges !== undefined && csv) {
      return [
        {
          path: '/unitRanges',
          message:
            'unitRanges applies to EDF and BDF recordings; a CSV recording keeps every float32 value as it is',
        },
      ];
    }
    return [];
  },
};

const logger: BuiltinDescriptor = {
  name: 'logger',
  aliases: ['Logger'],
  role: 'sink',
  inputs: ['in'],
  outputs: [],
  description: "Writes one line per frame (seq, samples, channels) to the node's log.",
  configSchema: Type.Object({ ...COMMON_CONFIG }, { additionalProperties: false }),
};

const tap: BuiltinDescriptor = {
  name: 'tap',
  aliases: [],
  role: 'sink',
  inputs: ['in'],
  outputs: [],
  description:
    "Hands every frame to the service's main thread (the quick EEG streams' buffer and WebSocket).",
  configSchema: Type.Object({ ...COMMON_CONFIG }, { additionalProperties: false }),
};

const ingest: BuiltinDescriptor = {
  name: 'ingest',
  aliases: [],
  role: 'source',
  inputs: [],
  outputs: ['out'],
  description:
    'Emits the frames sent to the WebSocket `/stream/{streamId}/ingest` (for example by another headsetd).',
  outputRate: (config) => numberOf(config, 'sampleRate'),
  outputChannels: (config) => config.channels as string[] | undefined,
  configSchema: Type.Object(
    {
      ...COMMON_CONFIG,
      sampleRate: Type.Optional(
        Type.Number({
          minimum: 1,
          maximum: 20000,
          description:
            'Sample rate, Hz, that frames must have; frames at another rate are refused. Default: any.',
        }),
      ),
      channels: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
          minItems: 1,
          maxItems: 64,
          description:
            'Channel names (case-insensitive) that frames must have; frames with other channels are refused. Default: any.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
};

export const BUILTINS: readonly BuiltinDescriptor[] = [
  signalGenerator,
  eegSource,
  filter,
  websocket,
  recorder,
  logger,
  tap,
  ingest,
  ...LSL_BUILTINS,
  ...MAKER_BUILTINS,
  ...ERP_BUILTINS,
  ...SPECTRAL_BUILTINS,
  osc,
  ...SSVEP_BUILTINS,
];

const BY_NAME = new Map(BUILTINS.map((b) => [b.name, b]));
const BY_ALIAS = new Map(BUILTINS.flatMap((b) => b.aliases.map((a) => [a, b] as const)));

export function builtinByName(name: string): BuiltinDescriptor | undefined {
  return BY_NAME.get(name);
}

export function builtinByAlias(alias: string): BuiltinDescriptor | undefined {
  return BY_ALIAS.get(alias);
}
