/**
 * An LSL stream's channels as the device plays them: every column of the reader (lsl/columns.ts:
 * its label, unit and type from the stream's description) under its own name, its label cleaned
 * of type prefixes and reference suffixes as the replay device cleans a file's labels (`EEG
 * Fp1-Ref` is `Fp1`), or under the name the argument's `channels=` gives it, which replaces the
 * label. Nothing else renames a channel: a Muse's TP9 is TP9, a 64-channel cap's FCz is FCz.
 *
 * - A column without a label is `ch<n>` (its column, from 1).
 * - A column is not played (its reason says why) when `channels=` gives it `-`, when its label is
 *   no channel name and `channels=` gives it none, or when its name is the name (in any case) of
 *   an earlier column: rename one of them with `channels=`.
 * - Units are the reader's (formats/units.ts): a voltage in µV, a channel without a unit taken as
 *   µV, any other unit (an accelerometer in `g` or `m/s^2`, a temperature) played as it is, its
 *   unit in frames (`units`) and in recordings as the stream declares it.
 * - Type: the declared one (`EEG`; EOG, EMG and ECG are EXG; `ACC`, `AUX`), else from the name
 *   (device/channels.ts `channelTypeOf`).
 */
import { MICROVOLT } from '../../core/frame.js';
import { cleanLabel } from '../../formats/labels.js';
import type { LslColumn } from '../../lsl/columns.js';
import type { ResolvedStream } from '../../lsl/resolver.js';
import { channelNameProblem, MAX_CHANNEL_NAME, sameChannelName } from '../../core/channel-names.js';
import { channelTypeOf } from '../channels.js';
import { DeviceArgumentError } from '../errors.js';
import type { LiveChannel } from '../live/driver.js';

/** One column of the stream, with the unit it declares beside the live headset's contract. */
export interface LslChannel extends LiveChannel {
  /** The unit the stream declares for it (`''` when it declares none). */
  readonly declaredUnit: string;
}

/** The stream's channels (the reader's `columns` of it), in column order, each played under its own name or not played with the reason. */
export function mapLslChannels(
  stream: ResolvedStream,
  columns: readonly LslColumn[],
  map: readonly (string | undefined)[] | undefined,
  argument: string,
): LslChannel[] {
  const count = columns.length;
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
  columns.forEach((column, c) => {
    const { label, declaredUnit } = column;
    const type = channelTypeOf(cleanLabel(label), column.declaredType);
    const given = map?.[c];
    const unplayed = (reason: string): LslChannel => ({ label, name: undefined, type, declaredUnit, reason });
    if (map !== undefined && given === undefined) {
      channels.push(unplayed('is - in channels='));
      return;
    }
    const name = given ?? cleanLabel(label);
    const problem = channelNameProblem(name);
    if (problem !== undefined && given === undefined) {
      channels.push(unplayed(`its label ${problem} (give it a name with channels=)`));
      return;
    }
    if (problem !== undefined) {
      refuse(
        `--device lsl:${argument}: channels= entry ${c + 1} ${JSON.stringify(name)} ${problem}: give each channel a name of 1 to ${MAX_CHANNEL_NAME} printable characters.`,
      );
    }
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
      return;
    }
    channels.push({
      label,
      name,
      type: given === undefined ? type : channelTypeOf(name),
      declaredUnit,
      // A voltage is in µV (LiveChannel: no unit); any other unit is played as it is.
      ...(column.unit === MICROVOLT ? {} : { unit: column.unit }),
    });
  });
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
