/**
 * Validation of the values API users hand to the device. Every refusal is a `DeviceArgumentError`
 * (code `validation_failed`) naming the field, with a message that names what is allowed.
 */
import { DeviceArgumentError } from './errors.js';
import { sameChannelName } from '../core/channel-names.js';
import { ELECTRODES, type Electrode, isEegElectrode, parseElectrode } from '../core/electrodes.js';

/** Parses one electrode name (any case). */
export function electrodeOrThrow(name: unknown, field = 'electrode'): Electrode {
  const electrode = typeof name === 'string' ? parseElectrode(name) : undefined;
  if (electrode === undefined) {
    throw new DeviceArgumentError(
      `Unknown electrode ${JSON.stringify(name)}; use one of ${ELECTRODES.join(', ')}.`,
      { field, value: name, allowed: [...ELECTRODES] },
    );
  }
  return electrode;
}

/**
 * Parses a list of electrode names: all 21 when omitted; duplicates collapse to the first;
 * an empty list is refused (it would answer nothing).
 */
export function electrodeListOrThrow(
  names: readonly string[] | undefined,
  field = 'electrodes',
): Electrode[] {
  if (names === undefined) return [...ELECTRODES];
  if (names.length === 0) {
    throw new DeviceArgumentError(`Name at least one electrode in ${field}.`, { field });
  }
  return [...new Set(names.map((name) => electrodeOrThrow(name, field)))];
}

/** Parses a list of EEG channel names: electrodes that have an EEG channel (not CMS or DRL). */
export function eegChannelListOrThrow(names: readonly string[], field = 'channels'): Electrode[] {
  const electrodes = electrodeListOrThrow(names, field);
  const withoutChannel = electrodes.filter((e) => !isEegElectrode(e));
  if (withoutChannel.length > 0) {
    throw new DeviceArgumentError(
      `${withoutChannel.join(' and ')} ${withoutChannel.length > 1 ? 'have' : 'has'} no EEG channel (reference and driven-right-leg electrodes); leave ${withoutChannel.length > 1 ? 'them' : 'it'} out of channels.`,
      { field, value: withoutChannel },
    );
  }
  return electrodes;
}

/** A value that must be one of `allowed`. */
export function oneOfOrThrow<T extends number | string>(
  value: unknown,
  allowed: readonly T[],
  field: string,
  unit = '',
): T {
  const match = allowed.find((candidate) =>
    typeof candidate === 'string' && typeof value === 'string'
      ? candidate === value.trim().toUpperCase()
      : candidate === value,
  );
  if (match === undefined) {
    throw new DeviceArgumentError(
      `${field} ${JSON.stringify(value)} is not allowed; use one of ${allowed.join(', ')}${unit}.`,
      { field, value, allowed: [...allowed] },
    );
  }
  return match;
}

/** A finite number within [min, max] (or (min, max] when `exclusiveMin`). */
export function numberInRangeOrThrow(
  value: unknown,
  field: string,
  min: number,
  max: number,
  options: { exclusiveMin?: boolean; integer?: boolean; unit?: string } = {},
): number {
  const unit = options.unit === undefined ? '' : ` ${options.unit}`;
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (options.exclusiveMin === true ? value > min : value >= min) &&
    value <= max &&
    (options.integer !== true || Number.isInteger(value));
  if (!ok) {
    const range =
      options.exclusiveMin === true ? `greater than ${min} and at most ${max}` : `from ${min} to ${max}`;
    throw new DeviceArgumentError(
      `${field} must be ${options.integer === true ? 'an integer' : 'a number'} ${range}${unit}; got ${JSON.stringify(value)}.`,
      {
        field,
        value,
        min,
        max,
      },
    );
  }
  return value;
}

/**
 * Names asked for (any case) as the device's channels, in the order asked, each once; refuses
 * (`validation_failed`, pointing at `field/index`) a name the device does not play, listing the
 * ones it does, and an empty list.
 */
export function channelListOrThrow(
  names: readonly string[],
  played: readonly string[],
  deviceName: string,
  field = 'channels',
): string[] {
  if (names.length === 0) {
    throw new DeviceArgumentError(`Name at least one channel in ${field}.`, { field });
  }
  const out: string[] = [];
  names.forEach((asked, index) => {
    const name = typeof asked === 'string' ? played.find((p) => sameChannelName(p, asked.trim())) : undefined;
    if (name === undefined) {
      throw new DeviceArgumentError(
        `${deviceName} has no channel ${JSON.stringify(asked)}; its channels are ${played.join(', ')} (any case).`,
        { field: `${field}/${index}`, value: asked, allowed: [...played] },
      );
    }
    if (!out.includes(name)) out.push(name);
  });
  return out;
}
