/**
 * The name each Cyton channel is played under, and the device argument that says so.
 *
 * The board's inputs have no names of their own but their numbers (`EXG Channel 1` … 16, as
 * OpenBCI's software lists them); the montage names what each records. The default is the montage
 * OpenBCI's GUI and Ultracortex headsets use: channels 1-8 Fp1, Fp2, C3, C4, P7, P8, O1, O2 and, with
 * a Daisy, channels 9-16 F7, F8, F3, F4, T7, T8, P3, P4. Frames carry the names as given (`P7` stays
 * `P7`); a name that is a headset electrode (T7 is the headset's T3) also keys that channel's
 * impedance.
 *
 * The argument: `cyton:<serial path>[?channels=<name>,<name>,...][&gain=<1|2|4|6|8|12|24>]`, for
 * example `cyton:/dev/ttyUSB0?channels=Fp1,Fp2,C3,C4,-,-,EOG,O2`. `channels` names channel 1, 2, ...
 * in order (any name: a 10-05 site, `EOG`, `ECG`); `-` leaves a channel unplayed (reported, powered
 * down, not recorded); channels past the end of the list are unplayed too. Each name (in any case)
 * may be given once.
 */
import { DeviceArgumentError } from '../errors.js';
import { channelNameProblem, MAX_CHANNEL_NAME, sameChannelName } from '../../core/channel-names.js';
import { channelTypeOf } from '../channels.js';
import type { LiveChannel } from '../live/driver.js';
import { type CytonGain, GAINS } from './protocol.js';

export const CYTON_MONTAGE = ['Fp1', 'Fp2', 'C3', 'C4', 'P7', 'P8', 'O1', 'O2'] as const;
export const DAISY_MONTAGE = ['F7', 'F8', 'F3', 'F4', 'T7', 'T8', 'P3', 'P4'] as const;

/** What `cyton:...` asks for. */
export interface CytonArgument {
  /** The serial port (`/dev/ttyUSB0`, `/dev/cu.usbserial-DM00Q0QN`). */
  readonly path: string;
  /** The names of channels 1, 2, ... (`-` for none); undefined: the default montage. */
  readonly channels: readonly string[] | undefined;
  /** The gain to set at open; undefined: the board's default (24). */
  readonly gain: CytonGain | undefined;
}

const UNMAPPED = '-';

function refuse(message: string, field: string, value?: unknown, allowed?: readonly unknown[]): never {
  throw new DeviceArgumentError(message, {
    field,
    ...(value === undefined ? {} : { value }),
    ...(allowed === undefined ? {} : { allowed }),
  });
}

/**
 * Parses the device argument (with or without its `cyton:` prefix). Throws `DeviceArgumentError`
 * (validation_failed) naming the field at fault: an empty path, an unknown option, an unknown or
 * repeated electrode name, a gain the board lacks.
 */
export function parseCytonArgument(argument: string): CytonArgument {
  const body = argument.replace(/^cyton:/i, '');
  const q = body.indexOf('?');
  const path = (q < 0 ? body : body.slice(0, q)).trim();
  if (path === '') {
    refuse(
      'Name the Cyton dongle\'s serial port after "cyton:", for example cyton:/dev/ttyUSB0 (Linux) or cyton:/dev/cu.usbserial-DM00Q0QN (macOS).',
      'device',
      argument,
    );
  }
  let channels: string[] | undefined;
  let gain: CytonGain | undefined;
  const query = q < 0 ? '' : body.slice(q + 1);
  for (const part of query.split('&').filter((p) => p !== '')) {
    const eq = part.indexOf('=');
    const key = decodeURIComponent(eq < 0 ? part : part.slice(0, eq)).trim();
    const value = decodeURIComponent(eq < 0 ? '' : part.slice(eq + 1)).trim();
    if (key === 'channels') {
      channels = value.split(',').map((n) => n.trim());
      checkNames(channels);
    } else if (key === 'gain') {
      const g = Number(value);
      if (!GAINS.includes(g as CytonGain)) {
        refuse(
          `gain=${value} is not a gain of the Cyton; use one of ${GAINS.join(', ')}.`,
          'device/gain',
          value,
          [...GAINS],
        );
      }
      gain = g as CytonGain;
    } else {
      refuse(
        `Unknown option "${key}" in the Cyton device argument; the options are channels=<name>,... (one electrode per channel, - for none) and gain=<${GAINS.join('|')}>.`,
        `device/${key}`,
        key,
        ['channels', 'gain'],
      );
    }
  }
  return { path, channels, gain };
}

function checkNames(names: readonly string[]): void {
  if (names.length > 16) {
    refuse(`channels names ${names.length} channels; a Cyton with a Daisy has 16.`, 'device/channels', names);
  }
  names.forEach((name, i) => {
    if (name === UNMAPPED) return;
    const problem = channelNameProblem(name);
    if (problem !== undefined) {
      refuse(
        `channels: ${JSON.stringify(name)} (channel ${i + 1}) ${problem}: give each channel a name of 1 to ${MAX_CHANNEL_NAME} printable characters, or - to leave it unplayed.`,
        `device/channels/${i}`,
        name,
      );
    }
    const before = names.findIndex((other, j) => j < i && other !== UNMAPPED && sameChannelName(other, name));
    if (before >= 0) {
      refuse(
        `channels: ${name} is named for channel ${before + 1} and channel ${i + 1}; name each channel once.`,
        `device/channels/${i}`,
        name,
      );
    }
  });
}

/**
 * The channels of a board with `count` channels (8, or 16 with a Daisy) under `names` (the
 * argument's list, or the default montage). Throws when the list names more channels than the
 * board has.
 */
export function cytonChannels(count: number, names: readonly string[] | undefined): LiveChannel[] {
  const list = names ?? [...CYTON_MONTAGE, ...DAISY_MONTAGE].slice(0, count);
  if (list.length > count) {
    refuse(
      `channels names ${list.length} channels, but the board has ${count}${count === 8 ? ' (no Daisy module answered at reset)' : ''}.`,
      'device/channels',
      list,
    );
  }
  const channels: LiveChannel[] = [];
  for (let i = 0; i < count; i++) {
    const name = list[i];
    const label = `EXG Channel ${i + 1}`;
    if (name === undefined || name === UNMAPPED) {
      const reason = name === undefined ? 'is past the end of channels=' : 'is - in channels=';
      channels.push({ label, name: undefined, type: 'EXG', reason: `${reason}: powered down, not played` });
    } else channels.push({ label, name, type: channelTypeOf(name) });
  }
  return channels;
}
