/**
 * An LSL stream's channels as the device plays them: every column under its own name, from the
 * stream's description (`desc/channels/channel/label`, `unit` and `type`, the XDF meta-data layout
 * that liblsl programs, LabRecorder and MNE-LSL use), cleaned of type prefixes and reference
 * suffixes as the replay device cleans a file's labels (`EEG Fp1-Ref` is `Fp1`), or under the name
 * the argument's `channels=` gives it, which replaces the label. Nothing else renames a channel: a
 * Muse's TP9 is TP9, a 64-channel cap's FCz is FCz.
 *
 * - A column without a label is `ch<n>` (its column, from 1).
 * - A column is not played (its reason says why) when `channels=` gives it `-`, when its label is
 *   no channel name and `channels=` gives it none, or when its name is the name (in any case) of
 *   an earlier column: rename one of them with `channels=`.
 * - Units: V, mV, µV (uV, microvolts), nV and their words are scaled to µV; a channel without a
 *   unit is taken as µV already (what OpenBCI GUI and most EEG outlets send). A channel in any
 *   other unit (an accelerometer in `g` or `m/s^2`, a temperature) is played as it is, its values
 *   unscaled, its unit in frames (`units`) and in recordings as the stream declares it.
 * - Type: the declared one (`EEG`; EOG, EMG and ECG are EXG; `ACC`, `AUX`), else from the name
 *   (device/channels.ts `channelTypeOf`).
 */
import { cleanLabel } from '../../formats/labels.js';
import type { ResolvedStream } from '../../lsl/resolver.js';
import { channelNameProblem, MAX_CHANNEL_NAME, sameChannelName } from '../../core/channel-names.js';
import { channelTypeOf } from '../channels.js';
import { DeviceArgumentError } from '../errors.js';
import type { LiveChannel } from '../live/driver.js';
import { microvoltsPerUnit } from '../replay/recording.js';

/** One column of the stream, with what the driver needs beyond the live headset's contract. */
export interface LslChannel extends LiveChannel {
  /** The unit the stream declares for it (`''` when it declares none). */
  readonly declaredUnit: string;
  /**
   * Multiplier from the stream's values to the frame's unit: to µV for a voltage, 1 for a channel
   * in another unit (played as it is) and for a channel not played.
   */
  readonly scale: number;
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

/** The stream's channels, in column order, each played under its own name or not played with the reason. */
export function mapLslChannels(
  stream: ResolvedStream,
  map: readonly (string | undefined)[] | undefined,
  argument: string,
): LslChannel[] {
  const count = stream.channelCount;
  const refuse = (message: string, field = 'device'): never => {
    throw new DeviceArgumentError(message, { field, value: `lsl:${argument}` });
  };
  const named = `LSL stream '${stream.name}'`;
  if (map !== undefined && map.length !== count) {
    refuse(
      `--device lsl:${argument}: channels= names ${map.length} channel(s) but ${named} has ${count}; give a name for each of its ${count} channels in column order (lsl:<query>?channels=Fp1,Fp2,…, with - for a channel not played).`,
    );
  }
  const channels: LslChannel[] = [];
  for (let c = 0; c < count; c++) {
    const description = stream.channels[c];
    const raw = description?.label.trim() ?? '';
    const label = raw === '' ? `ch${c + 1}` : raw;
    const unit = description?.unit?.trim() ?? '';
    const type = channelTypeOf(cleanLabel(label), description?.type ?? '');
    const given = map?.[c];
    const unplayed = (reason: string): LslChannel => ({
      label,
      name: undefined,
      type,
      declaredUnit: unit,
      scale: 1,
      reason,
    });
    if (map !== undefined && given === undefined) {
      channels.push(unplayed('is - in channels='));
      continue;
    }
    const name = given ?? cleanLabel(label);
    const problem = channelNameProblem(name);
    if (problem !== undefined && given === undefined) {
      channels.push(unplayed(`its label ${problem} (give it a name with channels=)`));
      continue;
    }
    if (problem !== undefined) {
      refuse(
        `--device lsl:${argument}: channels= entry ${c + 1} ${JSON.stringify(name)} ${problem}: give each channel a name of 1 to ${MAX_CHANNEL_NAME} printable characters.`,
      );
    }
    const toMicrovolts = lslMicrovoltsPerUnit(unit);
    const before = channels.findIndex(
      (other) => other.name !== undefined && sameChannelName(other.name, name),
    );
    if (before >= 0) {
      if (given !== undefined) refuse(`--device lsl:${argument}: channels= names ${name} twice.`);
      channels.push(
        unplayed(
          `is named ${name} like channel ${before + 1}; only the first is played (give each a name of its own with channels=)`,
        ),
      );
      continue;
    }
    channels.push({
      label,
      name,
      type: given === undefined ? type : channelTypeOf(name),
      declaredUnit: unit,
      // A voltage is scaled to µV; any other unit is played as it is, under its own name.
      ...(toMicrovolts === undefined ? { unit, scale: 1 } : { scale: toMicrovolts }),
    });
  }
  if (!channels.some((channel) => channel.name !== undefined)) {
    refuse(
      `${named} has no channel the device can play (${describeUnplayed(channels).join('; ') || 'it has none'}).`,
    );
  }
  return channels;
}

/** The channels not played, in words (`ACC_X (its unit "g" is not a voltage …)`), for logs. */
export function describeUnplayed(channels: readonly LslChannel[]): string[] {
  return channels
    .filter((channel) => channel.name === undefined)
    .map((channel) => `${channel.label} (${channel.reason ?? 'not played'})`);
}
