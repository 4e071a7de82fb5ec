/**
 * What an `lsl-outlet` declares of its frames' channels (docs/lsl.md §Stream type and units): the
 * stream's type and each channel's `<unit>` and `<type>` in the description, from the frames'
 * units (core/frame.ts). EEG in µV is type `EEG`, each channel in the node's `unit` (`microvolts`);
 * a derived quantity is not EEG, and an inlet that resolves `type='EEG'` must not take it for EEG:
 *
 * | channels' units                  | stream type    | channel type |
 * |----------------------------------|----------------|--------------|
 * | all µV                           | `EEG` (config) | the stream's |
 * | all µV², µV²/Hz or dB (powers)   | `BandPower`    | `BandPower`  |
 * | all 1 (ratios, scores)           | `Scores`       | `Score`      |
 * | all g, m/s², m/s^2, m/s2         | `Accelerometer`| `ACC`        |
 * | anything else, or a mix          | `Mixed`        | per channel: `EEG` for µV, else as above, `MISC` for other units |
 *
 * A channel not in µV keeps its unit as the frames say it (`µV²`, `dB`, `1`, `g`).
 */
import { channelUnit, type Frame, MICROVOLT } from '../../core/frame.js';

type Kind = 'EEG' | 'BandPower' | 'Score' | 'ACC' | 'MISC';

const KIND_OF_UNIT: Readonly<Record<string, Kind>> = {
  [MICROVOLT]: 'EEG',
  'µV²': 'BandPower',
  'µV²/Hz': 'BandPower',
  dB: 'BandPower',
  '1': 'Score',
  g: 'ACC',
  'm/s²': 'ACC',
  'm/s^2': 'ACC',
  'm/s2': 'ACC',
};

const STREAM_TYPE_OF_KIND: Readonly<Record<Kind, string>> = {
  EEG: 'EEG',
  BandPower: 'BandPower',
  Score: 'Scores',
  ACC: 'Accelerometer',
  MISC: 'Mixed',
};

export interface LslChannelDeclaration {
  label: string;
  unit: string;
  type: string;
}

/** The stream type and the channels' description for frames shaped like `frame`. */
export function lslDeclaration(
  frame: Pick<Frame, 'channels' | 'units'>,
  config: { type?: string | undefined; unit?: string | undefined },
  defaults: { type: string; unit: string },
): { type: string; channels: LslChannelDeclaration[] } {
  const kinds = frame.channels.map((_, c) => KIND_OF_UNIT[channelUnit(frame, c)] ?? 'MISC');
  const first = kinds[0] ?? 'EEG';
  const uniform = kinds.every((kind) => kind === first);
  const derived = uniform ? STREAM_TYPE_OF_KIND[first] : 'Mixed';
  // The node's `type` is the user's word for all-µV frames; a derived stream says what it holds.
  const type = uniform && first === 'EEG' ? (config.type ?? defaults.type) : (config.type ?? derived);
  const voltageUnit = config.unit ?? defaults.unit;
  const channels = frame.channels.map((label, c) => {
    const unit = channelUnit(frame, c);
    const kind = kinds[c] as Kind;
    return {
      label,
      unit: unit === MICROVOLT ? voltageUnit : unit,
      type: uniform && first === 'EEG' ? type : kind,
    };
  });
  return { type, channels };
}
