/**
 * The kinds of device `--device` names, listed once. The setting's schema pattern and description
 * (service/config.ts), its own check with a message that says what to give (`deviceSettingProblem`)
 * and the start-up's `openDevice` all read this list: a new kind of device is its folder, which
 * exports its `DeviceKind` (./kind.ts), and one line here. A kind loads its device's code when it
 * opens (`import()`), so the settings' check, which the command line runs for every command, loads
 * no driver.
 */
import { errorMessage } from '../core/error-message.js';
import { HeadsetdError, isHeadsetdError } from '../core/errors.js';
import { orList } from '../core/or-list.js';
import { CYTON_KIND } from './cyton/kind.js';
import type { Headset } from './headset.js';
import type { DeviceKind, DeviceOpenContext } from './kind.js';
import { LSL_KIND } from './lsl/kind.js';
import { REPLAY_KIND } from './replay/kind.js';
import { SIMULATED_KIND } from './simulated/kind.js';

export type { DeviceForm, DeviceKind, DeviceOpenContext } from './kind.js';

export const DEVICE_KINDS: readonly DeviceKind[] = [SIMULATED_KIND, REPLAY_KIND, CYTON_KIND, LSL_KIND];

/** The values the `device` setting accepts, as the settings' schema pattern. */
export function deviceSettingPattern(kinds: readonly DeviceKind[] = DEVICE_KINDS): string {
  return `^(${kinds.map((kind) => kind.pattern).join('|')})$`;
}

/** Every form with what it is: `simulated (electrodes retracted), ..., lsl:QUERY (an LSL stream, ...)`. */
export function deviceForms(kinds: readonly DeviceKind[] = DEVICE_KINDS): string {
  return orList(kinds.flatMap((kind) => kind.forms.map((form) => `${form.value} (${form.says})`)));
}

/** What to do about `value`, or undefined when it is a device of one of `kinds`. */
export function deviceSettingProblem(
  value: unknown,
  kinds: readonly DeviceKind[] = DEVICE_KINDS,
): string | undefined {
  if (typeof value !== 'string') return `must be a text: ${deviceForms(kinds)}`;
  if (new RegExp(deviceSettingPattern(kinds)).test(value)) return undefined;
  const name = /^([a-z]+):\s*$/i.exec(value)?.[1]?.toLowerCase();
  const missing = kinds.find((kind) => kind.name === name)?.missingArgument;
  if (missing !== undefined) return `"${value}" ${missing}`;
  return `"${value}" is not a device: use ${deviceForms(kinds)}`;
}

/**
 * The headset `device` names, opened. Throws a clear error (the start-up fails) for a value that
 * names no kind of `kinds` (`invalid_request`) or a device that cannot be opened (`device_unavailable`
 * for a live amplifier, with the reason).
 */
export async function openDevice(
  device: string,
  context: DeviceOpenContext,
  kinds: readonly DeviceKind[] = DEVICE_KINDS,
): Promise<Headset> {
  const colon = device.indexOf(':');
  const name = colon < 0 ? device : device.slice(0, colon);
  const argument = colon < 0 ? '' : device.slice(colon + 1);
  const kind = kinds.find((k) => k.name === name && new RegExp(`^(${k.pattern})$`).test(device));
  if (kind === undefined) {
    const values = kinds.flatMap((k) => k.forms.map((form) => form.value));
    throw new HeadsetdError('invalid_request', `The device '${device}' is unknown; use ${orList(values)}.`);
  }
  if (!kind.live) return kind.open(argument, context);
  try {
    return await kind.open(argument, context);
  } catch (error) {
    const message = `The device '${device}' cannot be opened: ${errorMessage(error)}`;
    throw isHeadsetdError(error)
      ? new HeadsetdError(error.code, message, error.details)
      : new HeadsetdError('device_unavailable', message);
  }
}
