/**
 * The `device` setting's own check, before the schema's: a value of the wrong form gets a message
 * that says what to give, with an example, rather than the schema's list of forms. `lsl` and
 * `lsl:` alone are the LSL device with its default query, `type=EEG` (docs/devices.md).
 */
import { HeadsetdError } from '../core/errors.js';

const FORMS =
  'simulated, simulated:seated, replay:FILE (an EDF/BDF file), cyton:SERIAL_PORT (e.g. cyton:/dev/ttyUSB0) or lsl:QUERY (e.g. lsl:type=EEG)';

/** What to do about `value`, or undefined when it has one of the forms the schema accepts. */
export function deviceSettingProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `must be a text: ${FORMS}`;
  if (/^(simulated|simulated:seated|replay:.+|cyton:.+|lsl(:.*)?)$/.test(value)) return undefined;
  const kind = /^([a-z]+):\s*$/i.exec(value)?.[1]?.toLowerCase();
  if (kind === 'cyton')
    return `"${value}" names no serial port: give the port of the Cyton's USB dongle, cyton:SERIAL_PORT, e.g. cyton:/dev/ttyUSB0 (Linux), cyton:/dev/tty.usbserial-XXXXXXXX (macOS) or cyton:COM3 (Windows)`;
  if (kind === 'replay')
    return `"${value}" names no file: give the EDF/BDF file to replay, replay:FILE, e.g. replay:/data/session.bdf`;
  return `"${value}" is not a device: use ${FORMS}`;
}

/** Throws the `invalid_request` error for a bad `device` setting; `source` names where it was given. */
export function assertDeviceSetting(value: unknown, source: string): void {
  const problem = deviceSettingProblem(value);
  if (problem === undefined) return;
  throw new HeadsetdError('invalid_request', `The setting /device (${source}): ${problem}.`, {
    path: '/device',
    value,
  });
}
