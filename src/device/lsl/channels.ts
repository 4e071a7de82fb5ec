/**
 * An LSL stream's channels as the headset plays them: each column's label and unit from the
 * stream's description (`desc/channels/channel/label` and `unit`, the XDF meta-data layout that
 * liblsl programs, LabRecorder and MNE-LSL use), mapped to an electrode by the label matching the
 * replay device uses for file labels (formats/labels.ts: any case, `EEG ` prefixes, `-Ref`
 * suffixes, the 10-10 names T7/T8/P7/P8 for T3/T4/T5/T6), or by the `channels=` map of the
 * argument, which replaces the labels.
 *
 * - A column that names no EEG electrode (an accelerometer, `AUX1`, `Fpz`, CMS or DRL), or names
 *   one an earlier column already took, is not played: its electrode is undefined and its reason
 *   says why.
 * - Units: V, mV, µV (uV, microvolts), nV and their words are scaled to µV; a channel without a
 *   unit is taken as µV already (what OpenBCI GUI and most EEG outlets send); a played channel in
 *   any other unit is refused.
 * - A stream without labels, or none of whose labels names an electrode, is refused unless the
 *   argument maps its channels.
 */
import { EEG_ELECTRODES, type Electrode, isEegElectrode } from '../../core/electrodes.js';
import { matchElectrode } from '../../formats/labels.js';
import type { ResolvedStream } from '../../lsl/resolver.js';
import { DeviceArgumentError } from '../errors.js';
import type { LiveChannel } from '../live/driver.js';
import { microvoltsPerUnit } from '../replay/recording.js';

/** One column of the stream, with what the driver needs beyond the live headset's contract. */
export interface LslChannel extends LiveChannel {
  /** The unit the stream declares for it (`''` when it declares none). */
  readonly unit: string;
  /** Multiplier from the stream's values to µV. */
  readonly toMicrovolts: number;
  /** Why it is not played, when `electrode` is undefined. */
  readonly reason?: string;
}

/** The words for volts that LSL outlets write (`microvolts`), beside the symbols replay knows. */
const WORDS: Readonly<Record<string, number>> = {
  volt: 1e6,
  volts: 1e6,
  millivolt: 1e3,
  millivolts: 1e3,
  microvolt: 1,
  microvolts: 1,
  nanovolt: 1e-3,
  nanovolts: 1e-3,
};

/** µV per unit of `unit`; 1 for no unit at all; undefined for a unit that is not a voltage. */
export function lslMicrovoltsPerUnit(unit: string): number | undefined {
  const trimmed = unit.trim();
  if (trimmed === '') return 1;
  return WORDS[trimmed.toLowerCase()] ?? microvoltsPerUnit(trimmed);
}

const HOW_TO_MAP = (count: number) =>
  `name the electrode of each of its ${count} channels after the query: lsl:<query>?channels=Fp1,Fp2,…, with - for a channel not played`;

/** The stream's channels mapped to electrodes, in column order; refuses what cannot be played. */
export function mapLslChannels(
  stream: ResolvedStream,
  map: readonly (string | undefined)[] | undefined,
  argument: string,
): LslChannel[] {
  const count = stream.channelCount;
  const refuse = (message: string): never => {
    throw new DeviceArgumentError(message, { field: 'device', value: `lsl:${argument}` });
  };
  const labels = Array.from({ length: count }, (_, c) => stream.channels[c]?.label.trim() ?? '');
  const units = Array.from({ length: count }, (_, c) => stream.channels[c]?.unit?.trim() ?? '');
  const named = `LSL stream '${stream.name}'`;
  if (map !== undefined && map.length !== count) {
    refuse(
      `--device lsl:${argument}: channels= names ${map.length} channel(s) but ${named} has ${count}; ${HOW_TO_MAP(count)}.`,
    );
  }
  if (map === undefined && labels.every((label) => label === '')) {
    refuse(
      `${named} has no channel labels (desc/channels/channel/label), so nothing says which electrode each channel is: ${HOW_TO_MAP(count)}.`,
    );
  }
  const taken = new Map<Electrode, number>();
  const channels: LslChannel[] = [];
  for (let c = 0; c < count; c++) {
    const label = labels[c] === '' ? `ch${c + 1}` : (labels[c] as string);
    const unit = units[c] as string;
    const name = map === undefined ? labels[c] : map[c];
    let electrode = name === undefined || name === '' ? undefined : matchElectrode(name);
    let reason: string | undefined;
    if (map !== undefined && name !== undefined && (electrode === undefined || !isEegElectrode(electrode))) {
      refuse(
        `--device lsl:${argument}: channels= entry ${c + 1} "${name}" is not one of the EEG electrodes ${EEG_ELECTRODES.join(', ')} (10-20 names; 10-10 T7/T8/P7/P8 accepted; - for a channel not played).`,
      );
    }
    if (name === undefined || name === '') reason = map === undefined ? 'has no label' : 'is - in channels=';
    else if (electrode === undefined) reason = "names none of the headset's 19 EEG electrodes";
    else if (!isEegElectrode(electrode)) {
      reason = `names ${electrode}, which has no EEG channel on the headset`;
      electrode = undefined;
    } else if (taken.has(electrode)) {
      if (map !== undefined) refuse(`--device lsl:${argument}: channels= names ${electrode} twice.`);
      reason = `names ${electrode} like channel ${(taken.get(electrode) ?? 0) + 1} before it; only the first is played`;
      electrode = undefined;
    }
    if (electrode !== undefined) taken.set(electrode, c);
    const toMicrovolts = lslMicrovoltsPerUnit(unit);
    if (toMicrovolts === undefined && electrode !== undefined) {
      refuse(
        `${named}: channel ${c + 1} "${label}" (${electrode}) is in "${unit}", not a voltage unit the LSL device knows; its outlet should declare V, mV, µV (uV, microvolts) or nV, or no unit for µV.`,
      );
    }
    channels.push({
      label,
      electrode,
      unit,
      toMicrovolts: toMicrovolts ?? 1,
      ...(reason === undefined ? {} : { reason }),
    });
  }
  if (taken.size === 0) {
    refuse(
      `${named} has no channel the headset can play: none of its labels (${labels.map((l) => JSON.stringify(l)).join(', ')}) names one of the EEG electrodes ${EEG_ELECTRODES.join(', ')} (10-20 names, 10-10 T7/T8/P7/P8 accepted); ${HOW_TO_MAP(count)}.`,
    );
  }
  return channels;
}

/** The channels not played, in words (`AUX1 (names none of …)`), for info() and logs. */
export function describeUnplayed(channels: readonly LslChannel[]): string[] {
  return channels
    .filter((channel) => channel.electrode === undefined)
    .map((channel) => `${channel.label} (${channel.reason ?? 'not played'})`);
}
