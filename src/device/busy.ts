/**
 * The 409 `device_busy` answers of the device's two exclusive activities (EEG acquisition and
 * impedance measurement share the front end), naming what holds the device and how to release
 * it: a stranger told only "the device is busy" cannot tell which of their programs to stop.
 */
import { DeviceBusyError } from './errors.js';
import type { AcquisitionOwner } from './headset.js';

const OWNER_TEXT: Record<AcquisitionOwner, { holder: string; release: string }> = {
  client: {
    holder:
      'a client that started it (POST /system/sensors/eeg/stream or /system/peripheral/electrodes/stream)',
    release: 'DELETE /system/sensors/eeg/stream stops it',
  },
  streams: {
    holder: 'streams that read it through an eeg-source node (quick streams included)',
    release: 'stopping those streams releases it',
  },
};

/** Acquisition holds the device: `what` (e.g. "measuring impedance") must wait. */
export function acquisitionBusy(owners: readonly AcquisitionOwner[], what: string): DeviceBusyError {
  const known = owners.filter((o) => o in OWNER_TEXT);
  const held = known.length === 0 ? '' : `, held by ${known.map((o) => OWNER_TEXT[o].holder).join(' and ')}`;
  const release = known.length === 0 ? 'stop it first' : known.map((o) => OWNER_TEXT[o].release).join('; ');
  return new DeviceBusyError(
    `EEG acquisition is running${held}, and must stop before ${what} (acquisition and impedance measurement are exclusive on this hardware): ${release}.`,
    { activity: 'eeg_acquisition', owners: [...known] },
  );
}

/** An impedance measurement holds the device: EEG acquisition must wait. `holder` says whose. */
export function impedanceBusy(holder: string | undefined): DeviceBusyError {
  const whose = holder === undefined ? '' : ` (${holder})`;
  return new DeviceBusyError(
    `An impedance measurement is running${whose}; start EEG acquisition when it has finished (acquisition and impedance measurement are exclusive on this hardware).`,
    { activity: 'impedance_measurement', ...(holder === undefined ? {} : { holder }) },
  );
}

/**
 * A reset of the EEG configuration asked for while streams hold acquisition: it would stop their
 * samples. The API names the streams (details.heldBy.streams); `?force=true` resets anyway, and
 * the streams then report it and take acquisition again.
 */
export function streamsHoldAcquisition(): DeviceBusyError {
  return new DeviceBusyError(
    `EEG acquisition is held by ${OWNER_TEXT.streams.holder}, and a reset would stop their samples: ${OWNER_TEXT.streams.release}, or reset anyway with DELETE /system/sensors/eeg?force=true (the streams then report the reset as degraded and take acquisition again with the restored configuration).`,
    { activity: 'eeg_acquisition', owners: ['streams'] },
  );
}
