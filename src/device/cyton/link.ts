/**
 * The byte link a Cyton driver talks through: the dongle's serial port (platform/serial, at the
 * board's 115200 baud, 8N1), read on the thread that opens it. The driver takes the opener as an
 * argument, so that the tests can put anything on the other end.
 */
import { openSerialLink, type SerialLinkOpener } from '../../platform/serial/serial-link.js';
import { CYTON_BAUD_RATE } from './protocol.js';

export type { SerialLink, SerialLinkOpener } from '../../platform/serial/serial-link.js';

/** Opens the Cyton dongle's port at `path` at the board's baud rate. */
export const openCytonPort: SerialLinkOpener = (path) => openSerialLink(path, { baudRate: CYTON_BAUD_RATE });
