/**
 * Which electrode each Cyton channel records, and the device argument that says so.
 *
 * The default is the montage OpenBCI's GUI and Ultracortex headsets use: channels 1-8 Fp1, Fp2, C3,
 * C4, P7, P8, O1, O2 and, with a Daisy, channels 9-16 F7, F8, F3, F4, T7, T8, P3, P4. Names are
 * matched as the replay device matches a file's labels (formats/labels.ts): any case, 10-10 names
 * T7/T8/P7/P8 for the headset's T3/T4/T5/T6.
 *
 * The argument: `cyton:<serial path>[?channels=<name>,<name>,...][&gain=<1|2|4|6|8|12|24>]`, for
 * example `cyton:/dev/ttyUSB0?channels=Fp1,Fp2,C3,C4,-,-,O1,O2`. `channels` names the electrode of
 * channel 1, 2, ... in order; `-` leaves a channel unplayed (it is reported, not recorded); channels
 * past the end of the list are unplayed too. Each electrode may be named once.
 */
import { DeviceArgumentError } from '../errors.js';
import { EEG_ELECTRODES, type Electrode, isEegElectrode, MIXED_CASE } from '../../core/electrodes.js';
import { matchElectrode } from '../../formats/labels.js';
import type { LiveChannel } from '../live/driver.js';
import { type CytonGain, GAINS } from './protocol.js';

export const CYTON_MONTAGE = ['Fp1', 'Fp2', 'C3', 'C4', 'P7', 'P8', 'O1', 'O2'] as const;
export const DAISY_MONTAGE = ['F7', 'F8', 'F3', 'F4', 'T7', 'T8', 'P3', 'P4'] as const;

/** What `cyton:...` asks for. */
export interface CytonArgument {
  /** The serial port (`/dev/ttyUSB0`, `COM3`). */
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
      'Name the Cyton dongle\'s serial port after "cyton:", for example cyton:/dev/ttyUSB0 (Linux), cyton:/dev/cu.usbserial-DM00Q0QN (macOS) or cyton:COM3 (Windows).',
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
  const seen = new Map<Electrode, number>();
  names.forEach((name, i) => {
    if (name === UNMAPPED) return;
    const electrode = matchElectrode(name);
    if (electrode === undefined || !isEegElectrode(electrode)) {
      const known = EEG_ELECTRODES.map((e) => MIXED_CASE[e]).join(', ');
      refuse(
        `channels: "${name}" (channel ${i + 1}) is not an EEG electrode of the headset; use one of ${known} (10-10 T7, T8, P7, P8 accepted), or - to leave the channel unplayed.`,
        `device/channels/${i}`,
        name,
      );
    }
    const before = seen.get(electrode);
    if (before !== undefined) {
      refuse(
        `channels: ${MIXED_CASE[electrode]} is named for channel ${before + 1} and channel ${i + 1}; name each electrode once.`,
        `device/channels/${i}`,
        name,
      );
    }
    seen.set(electrode, i);
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
    const electrode = name === undefined || name === UNMAPPED ? undefined : matchElectrode(name);
    channels.push({ label: electrode === undefined ? `EXG Channel ${i + 1}` : (name as string), electrode });
  }
  return channels;
}
