/**
 * A serial port as the Cyton driver's byte link (device/cyton/link.ts), with the `serialport`
 * package: 115200 baud, 8 data bits, no parity, one stop bit, no flow control, as the OpenBCI
 * dongle's FTDI chip expects. The composer hands `openSerialLink` to the Cyton driver; the device
 * layer itself imports no package.
 *
 * Closing: `close()` is ours and is not reported; any other end of the port (the dongle unplugged,
 * a read error, the pseudo-terminal's other side gone) is reported once through `onClose`.
 */
import type { SerialPort } from 'serialport';
import { ListenerSet, type Unsubscribe } from '../core/listener-set.js';
import type { SerialLink } from '../device/cyton/link.js';
import { CYTON_BAUD_RATE } from '../device/cyton/protocol.js';

class SerialPortLink implements SerialLink {
  private readonly data = new ListenerSet<Uint8Array>();
  private readonly closes = new ListenerSet<Error | undefined>();
  private closing = false;
  private ended = false;
  private lastError: Error | undefined;

  constructor(private readonly port: SerialPort) {
    port.on('data', (chunk: Buffer) => {
      this.data.emit(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
    });
    port.on('error', (error: Error) => {
      this.lastError = error;
      // An error on an open port ends it: make sure it is closed (which reports it once).
      if (port.isOpen)
        port.close(() => {
          this.end();
        });
      else this.end();
    });
    port.on('close', () => {
      this.end();
    });
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.closing) this.closes.emit(this.lastError);
  }

  write(bytes: Uint8Array | string): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.ended) {
        reject(new Error('the serial port is closed'));
        return;
      }
      this.port.write(
        typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes),
        (error) => {
          if (error) reject(error);
          else
            this.port.drain((e) => {
              if (e) reject(e);
              else resolve();
            });
        },
      );
    });
  }

  onData(listener: (chunk: Uint8Array) => void): Unsubscribe {
    return this.data.add(listener);
  }

  onClose(listener: (error?: Error) => void): Unsubscribe {
    return this.closes.add(listener);
  }

  close(): Promise<void> {
    this.closing = true;
    return new Promise((resolve) => {
      if (this.ended || !this.port.isOpen) {
        this.ended = true;
        resolve();
        return;
      }
      this.port.close(() => {
        this.ended = true;
        resolve();
      });
    });
  }
}

/**
 * Opens `path` at the Cyton's 115200 baud; rejects with the system's reason (ENOENT, EACCES, EBUSY).
 * The package (and its native binding) is loaded on the first call: a service without a Cyton
 * never loads it.
 */
export async function openSerialLink(path: string): Promise<SerialLink> {
  const { SerialPort } = await import('serialport');
  return new Promise((resolve, reject) => {
    const port = new SerialPort({
      path,
      baudRate: CYTON_BAUD_RATE,
      dataBits: 8,
      parity: 'none',
      stopBits: 1,
      autoOpen: false,
    });
    port.open((error) => {
      if (error) reject(error);
      else resolve(new SerialPortLink(port));
    });
  });
}
