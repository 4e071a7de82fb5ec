/**
 * The byte link a Cyton driver talks through: a serial port on the dongle, opened by the composer
 * (src/service/serial-link.ts implements it with the `serialport` package at 115200 baud) and injected, so
 * that device/ imports no package and the tests can put anything on the other end.
 */
import type { Unsubscribe } from '../../core/listener-set.js';

export interface SerialLink {
  /** Sends bytes (ASCII commands) to the board; resolves when they are handed to the port. */
  write(bytes: Uint8Array | string): Promise<void>;
  /** Bytes from the board, in chunks of any size, in order. */
  onData(listener: (chunk: Uint8Array) => void): Unsubscribe;
  /**
   * The link ended without `close()` being called: the dongle was unplugged, the port vanished or
   * failed (`error` says why when known). Called once.
   */
  onClose(listener: (error?: Error) => void): Unsubscribe;
  /** Closes the port. Safe to call twice. */
  close(): Promise<void>;
}

/** Opens the serial port at `path`; rejects (with the system's reason) when it cannot. */
export type SerialLinkOpener = (path: string) => Promise<SerialLink>;
