/**
 * The byte link a Cyton driver talks through: the dongle's serial port (platform/serial, at the
 * board's 115200 baud, 8N1), read on the thread that opens it. The driver takes the opener as an
 * argument, so that the tests can put anything on the other end.
 */
import { errorMessage } from '../../core/error-message.js';
import { openSerialLink, type SerialLinkOpener } from '../../platform/serial/serial-link.js';
import { DeviceUnavailableError } from '../errors.js';
import { CYTON_BAUD_RATE } from './protocol.js';

export type { SerialLink, SerialLinkOpener } from '../../platform/serial/serial-link.js';

/** Opens the Cyton dongle's port at `path` at the board's baud rate. */
export const openCytonPort: SerialLinkOpener = (path) => openSerialLink(path, { baudRate: CYTON_BAUD_RATE });

/** Why the dongle's port at `path` did not open, and what a person can do about it. */
export function portNotOpened(path: string, error: unknown): DeviceUnavailableError {
  const advice =
    (error as NodeJS.ErrnoException).code === 'EBUSY'
      ? 'Close the program that has it open (another headsetd, the OpenBCI GUI, a serial console), or name another port.'
      : 'Check that the dongle is plugged in, that the path is right and that this user may open it (on Linux, membership of the dialout group).';
  return new DeviceUnavailableError(
    'disconnected',
    `Cannot open the Cyton's serial port ${path}: ${errorMessage(error)}. ${advice}`,
  );
}
