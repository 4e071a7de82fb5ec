/**
 * A device's channels as it is: each under the name its source gives it (an LSL stream's label, a
 * Cyton montage's name, a headset electrode's 10-20 name), with its unit, its kind and, when the
 * name is a 10-05 site, its place on the head. Nothing is renamed implicitly: a stream selects
 * channels by these names (any case) and frames carry them as they are.
 *
 * A device also says which of its channels it does not play, each with the reason, as data
 * (GET /system/status `channels.unplayed`), never only in a sentence.
 */
import { type HeadPoint, sitePosition } from '../core/sites-1005.js';
export { sameChannelName } from '../core/channel-names.js';

/**
 * What a channel measures: `EEG` (a scalp electrode), `EXG` (a biopotential input of unknown or
 * other placement: EOG, EMG, ECG, an unlabelled amplifier input), `AUX` (an auxiliary voltage input),
 * `ACC` (an accelerometer axis), `MISC` (anything else).
 */
export const CHANNEL_TYPES = ['EEG', 'EXG', 'AUX', 'ACC', 'MISC'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** One channel the device plays, in the device's order. */
export interface DeviceChannel {
  /** The name frames, files and LSL outlets give it (`Fp1`, `TP9`, `Right AUX`). */
  readonly name: string;
  /** The unit of its samples in frames (`µV` for every voltage channel). */
  readonly unit: string;
  readonly type: ChannelType;
  /** Its place on a top view of the head when its name is a 10-05 site; absent otherwise. */
  readonly position?: HeadPoint;
}

/** A channel the device has but does not play. */
export interface UnplayedChannel {
  /** The name the source gives it (`ACC_X`, `EXG Channel 6`, `ch3`). */
  readonly name: string;
  /** Why, for a person (`its unit "g" is not a voltage`). */
  readonly reason: string;
}

/**
 * A channel description for `name`: in `unit` (a voltage channel's is µV, the default), its
 * position when the name is a 10-05 site.
 */
export function voltageChannel(name: string, type: ChannelType, unit = 'µV'): DeviceChannel {
  const position = sitePosition(name);
  return { name, unit, type, ...(position === undefined ? {} : { position }) };
}

/**
 * The kind of a voltage channel from what its source declares (an LSL `type`, an EDF+ label prefix)
 * and its name: a declared type the list knows (EOG, EMG and ECG are `EXG`), else `EEG` for a 10-05
 * site name, `AUX` for a name that says so, `EXG` otherwise.
 */
export function channelTypeOf(name: string, declared = ''): ChannelType {
  const upper = declared.trim().toUpperCase();
  if ((CHANNEL_TYPES as readonly string[]).includes(upper)) return upper as ChannelType;
  if (['EOG', 'EMG', 'ECG', 'EKG', 'BIO'].includes(upper)) return 'EXG';
  if (upper === 'ACCELEROMETER' || upper === 'ACCEL') return 'ACC';
  if (upper === 'AUXILIARY') return 'AUX';
  if (sitePosition(name) !== undefined) return 'EEG';
  if (/\baux/i.test(name)) return 'AUX';
  return 'EXG';
}
