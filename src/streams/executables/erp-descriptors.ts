/**
 * The descriptors of the event-related built-ins: `reference` (re-reference, pick and drop
 * channels) and `epoch` (windows of samples around markers). Their implementations are
 * reference.ts and epoch.ts; what they compute is in docs/builtins.md §Re-referencing and epochs.
 */
import { Type } from 'typebox';
import { MAX_CHANNEL_NAME, MAX_DEVICE_CHANNELS } from '../../core/channel-names.js';
import { type BuiltinDescriptor, COMMON_CONFIG, type ConfigIssue } from './builtin-descriptor.js';
import { referencePlan } from '../../dsp/reference.js';

const channelList = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: MAX_CHANNEL_NAME }), {
    minItems: 1,
    maxItems: MAX_DEVICE_CHANNELS,
    description,
  });

export interface ReferenceConfig {
  reference?: 'average' | readonly string[];
  pick?: readonly string[];
  drop?: readonly string[];
}

/** Issues of a reference config whose names are not all among `channels` (any case). */
function referenceIssues(config: Record<string, unknown>, channels: readonly string[]): ConfigIssue[] {
  const plan = referencePlan(config, channels);
  return plan.ok ? [] : [{ path: plan.path, message: plan.message }];
}

const reference: BuiltinDescriptor = {
  name: 'reference',
  aliases: [],
  role: 'processor',
  inputs: ['in'],
  outputs: ['out'],
  description:
    "Re-references EEG (to the channels' average, one channel or the mean of a set) and keeps or drops channels.",
  configSchema: Type.Object(
    {
      ...COMMON_CONFIG,
      reference: Type.Optional(
        Type.Union([Type.Literal('average'), channelList('the reference channels, any case, each once')], {
          description:
            '`average`: each sample minus the mean of every channel of the input frame; a list of channel names (any case): each sample minus the mean of those channels (one channel: `[Cz]`; linked mastoids: `[A1, A2]` or `[TP9, TP10]`). The reference channels stay in the output (an average or a single channel reference gives them what MNE gives them: a single reference channel becomes all zeros); drop them with `drop`. Default: no re-referencing.',
        }),
      ),
      pick: Type.Optional(
        channelList(
          'Channels to output, any case, each once, in this order (after re-referencing, which uses every input channel). Default: every input channel, in its order.',
        ),
      ),
      drop: Type.Optional(
        channelList(
          'Channels to leave out of the output, any case, each once (after re-referencing, which uses every input channel). Default: none.',
        ),
      ),
    },
    { additionalProperties: false },
  ),
  check(config) {
    const { reference: ref, pick, drop } = config as ReferenceConfig;
    if (ref === undefined && pick === undefined && drop === undefined) {
      return [{ path: '', message: 'a reference node needs at least one of reference, pick or drop' }];
    }
    if (pick !== undefined && drop !== undefined) {
      return [
        { path: '/drop', message: 'give pick or drop, not both: pick already says every channel kept' },
      ];
    }
    const issues: ConfigIssue[] = [];
    for (const field of ['reference', 'pick', 'drop'] as const) {
      const names = config[field];
      if (!Array.isArray(names)) continue;
      const seen = new Set<string>();
      names.forEach((name: string, i) => {
        const upper = name.toUpperCase();
        if (seen.has(upper)) issues.push({ path: `/${field}/${i}`, message: `'${name}' is listed twice` });
        seen.add(upper);
      });
    }
    return issues;
  },
  keepsRate: true,
  keepsUnits: true,
  checkWithChannels: referenceIssues,
  outputChannels(config, input) {
    const plan = referencePlan(config, input);
    return plan.ok ? plan.outputNames : undefined;
  },
};

export interface EpochConfig {
  tmin: number;
  tmax: number;
  baseline?: readonly [number | null, number | null] | null;
  markers?: readonly string[];
  reject?: number;
}

/** The largest epoch, s: one frame per epoch, so this bounds a frame's size and the node's memory. */
export const MAX_EPOCH_SECONDS = 60;

const epoch: BuiltinDescriptor = {
  name: 'epoch',
  aliases: [],
  role: 'processor',
  inputs: ['in'],
  outputs: ['out'],
  description:
    'Cuts a window of samples around each marker (signals `marker` and `annotate`, and the replayed recording’s markers) and emits it as one frame, baseline-corrected, unless a channel’s peak-to-peak exceeds `reject`.',
  configSchema: Type.Object(
    {
      ...COMMON_CONFIG,
      tmin: Type.Number({
        minimum: -MAX_EPOCH_SECONDS,
        maximum: MAX_EPOCH_SECONDS,
        description:
          'Start of the window relative to the marker, s (negative: before it). Rounded to a sample as MNE does: round(tmin × rate), halves to even.',
      }),
      tmax: Type.Number({
        minimum: -MAX_EPOCH_SECONDS,
        maximum: MAX_EPOCH_SECONDS,
        description:
          'End of the window relative to the marker, s, included. Rounded like tmin; at least tmin.',
      }),
      baseline: Type.Optional(
        Type.Union(
          [Type.Array(Type.Union([Type.Number(), Type.Null()]), { minItems: 2, maxItems: 2 }), Type.Null()],
          {
            description:
              '[a, b], s relative to the marker, within [tmin, tmax]: each channel of the epoch minus its mean over the samples whose time t satisfies a ≤ t ≤ b (null for a: from the first sample; null for b: to the last), as MNE’s `baseline=(a, b)`. null or absent: no baseline correction (MNE’s default is `(None, 0)`: write [null, 0] for it).',
          },
        ),
      ),
      markers: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
          minItems: 1,
          maxItems: 256,
          description:
            'The marker texts to cut epochs around, compared exactly (`square`, `Stimulus 3`, `trigger 2`). Default: every marker.',
        }),
      ),
      reject: Type.Optional(
        Type.Number({
          exclusiveMinimum: 0,
          description:
            'µV: an epoch in which any channel’s peak-to-peak (largest minus smallest sample over the whole window) is above this is dropped, counted and logged, as MNE’s `reject=dict(eeg=reject × 1e-6)`. Default: none dropped.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  check(config) {
    const { tmin, tmax, baseline } = config as unknown as EpochConfig;
    const issues: ConfigIssue[] = [];
    if (tmax < tmin)
      issues.push({ path: '/tmax', message: `tmax (${tmax} s) must be at least tmin (${tmin} s)` });
    if (baseline !== undefined && baseline !== null) {
      const [a, b] = baseline;
      if (a !== null && (a < tmin || a > tmax)) {
        issues.push({
          path: '/baseline/0',
          message: `the baseline starts at ${a} s, outside the epoch [${tmin}, ${tmax}] s`,
        });
      }
      if (b !== null && (b < tmin || b > tmax)) {
        issues.push({
          path: '/baseline/1',
          message: `the baseline ends at ${b} s, outside the epoch [${tmin}, ${tmax}] s`,
        });
      }
      if (a !== null && b !== null && a > b) {
        issues.push({
          path: '/baseline',
          message: `the baseline's start (${a} s) is after its end (${b} s)`,
        });
      }
    }
    return issues;
  },
  keepsRate: true,
  keepsUnits: true,
  outputChannels: (_config, input) => input,
};

export const ERP_BUILTINS: readonly BuiltinDescriptor[] = [reference, epoch];
