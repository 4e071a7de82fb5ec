/**
 * A `device_busy` answer held by streams (the device says only "streams") gets the ids of the
 * streams that read the EEG, in the message and in `details.heldBy.streams`: the device cannot
 * know them, the API can.
 */
import { DeviceBusyError } from '../device/errors.js';
import { HeadsetdError } from '../core/errors.js';

export function namingStreamHolders(error: HeadsetdError, readers: () => readonly string[]): HeadsetdError {
  if (!(error instanceof DeviceBusyError)) return error;
  const heldBy = error.heldBy;
  if (heldBy.activity !== 'eeg_acquisition' || !heldBy.owners.includes('streams')) return error;
  const ids = readers();
  if (ids.length === 0) return error;
  const list = ids.slice(0, 10).join(', ') + (ids.length > 10 ? ` and ${ids.length - 10} more` : '');
  return new HeadsetdError(
    error.code,
    `${error.message} The streams reading the EEG now: ${list} (POST /stream/streams/{id}/signal with signal=stop).`,
    { ...error.details, heldBy: { ...heldBy, streams: [...ids] } },
  );
}
