/**
 * A serial port as a byte link, read on the event loop of the thread that opens it (the device's
 * thread in the service: docs/architecture.md §Two walks through the code, the Cyton's serial port).
 *
 * The port is opened by `@serialport/bindings-cpp`'s native `open` (O_NONBLOCK, raw termios with
 * the line settings asked, an exclusive `flock` so that a second program cannot read the same
 * dongle) and nothing else of that package: its reader (`LinuxPortBinding`) polls on the
 * process's *main* loop, whatever thread opened the port (`uv_poll_init(uv_default_loop())`), so
 * a worker reading through it aborts the process. Instead the port is opened a second time and
 * read by Node's own `tty.ReadStream`, a libuv handle of the opening thread's loop: one wake-up of
 * that thread per read, none of any other. The first descriptor stays open for the lock, the
 * writes and `tcdrain`.
 *
 * POSIX terminals only (Linux, macOS): on Windows a port is no terminal and opening answers so.
 *
 * Closing: `close()` is ours and is not reported; any other end of the port (the dongle unplugged,
 * a read error, the pseudo-terminal's other side gone) is reported once through `onClose`.
 */
import { closeSync, constants, openSync, write as fsWrite } from 'node:fs';
import { ReadStream } from 'node:tty';
import { ListenerSet, type Unsubscribe } from '../../core/listener-set.js';

/** A serial port open for reading and writing bytes. */
export interface SerialLink {
  /** Sends bytes (ASCII commands); resolves when they have left the port (`tcdrain`). */
  write(bytes: Uint8Array | string): Promise<void>;
  /** Bytes from the port, in chunks of any size, in order. */
  onData(listener: (chunk: Uint8Array) => void): Unsubscribe;
  /**
   * The link ended without `close()` being called: the device was unplugged, the port vanished or
   * failed (`error` says why when known). Called once.
   */
  onClose(listener: (error?: Error) => void): Unsubscribe;
  /** Closes the port. Safe to call twice. */
  close(): Promise<void>;
}

/** Opens the serial port at `path`; rejects (with the system's reason) when it cannot. */
export type SerialLinkOpener = (path: string) => Promise<SerialLink>;

/** Line settings: 8 data bits, no parity, one stop bit, no flow control, at `baudRate`. */
export interface LineSettings {
  readonly baudRate: number;
}

/** The package's native functions this module uses (its `binding`, loaded by node-gyp-build). */
interface NativeSerial {
  open(path: string, options: object, done: (error: Error | null, fd: number) => void): void;
  drain(fd: number, done: (error: Error | null) => void): void;
  close(fd: number, done: (error: Error | null) => void): void;
}

/** The native binding, loaded on the first open: a service without a serial device never loads it. */
async function loadNative(): Promise<NativeSerial> {
  const module = await import('@serialport/bindings-cpp/dist/serialport-bindings.js');
  return module.binding as NativeSerial;
}

/** A write that found the port's output buffer full is tried again after this long… */
const WRITE_RETRY_MS = 5;
/** …for at most this long (a port that takes nothing for 2 s is stuck: the write fails). */
const WRITE_GIVE_UP_MS = 2000;

class TtyLink implements SerialLink {
  private readonly data = new ListenerSet<Uint8Array>();
  private readonly closes = new ListenerSet<Error | undefined>();
  private readonly reader: ReadStream;
  private closing = false;
  private ended = false;
  private lastError: Error | undefined;
  /** The writes in order: each starts when the one before it has left the port. */
  private writes: Promise<void> = Promise.resolve();

  /** `fd`: the descriptor the package opened (lock, writes); `readFd`: the one read. */
  constructor(
    private readonly native: NativeSerial,
    private readonly fd: number,
    readFd: number,
  ) {
    this.reader = new ReadStream(readFd);
    this.reader.on('data', (chunk: Buffer) => {
      this.data.emit(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
    });
    // A hang-up (the other side gone, the device unplugged) reads as the end of the stream; any
    // other failure as an error, then a close.
    this.reader.on('error', (error: Error) => {
      this.lastError = error;
    });
    this.reader.on('close', () => {
      this.end();
    });
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.closing) this.closes.emit(this.lastError);
  }

  write(bytes: Uint8Array | string): Promise<void> {
    const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes);
    // Two writes handed to the thread pool at once may run in either order: one at a time.
    const written = this.writes.then(() => this.writeAll(buffer));
    this.writes = written.catch(() => undefined);
    return written;
  }

  private writeAll(buffer: Buffer): Promise<void> {
    let giveUpAt = Date.now() + WRITE_GIVE_UP_MS;
    return new Promise((resolve, reject) => {
      const attempt = (offset: number): void => {
        if (this.ended || this.closing) {
          reject(new Error('the serial port is closed'));
          return;
        }
        fsWrite(this.fd, buffer, offset, buffer.length - offset, null, (error, written) => {
          if (error !== null && error.code !== 'EAGAIN') {
            reject(error);
            return;
          }
          const next = offset + (error === null ? written : 0);
          if (next > offset) giveUpAt = Date.now() + WRITE_GIVE_UP_MS;
          if (next >= buffer.length) {
            this.native.drain(this.fd, (e) => {
              if (e !== null) reject(e);
              else resolve();
            });
          } else if (Date.now() >= giveUpAt) {
            reject(new Error(`the serial port took no byte for ${WRITE_GIVE_UP_MS} ms`));
          } else
            setTimeout(
              () => {
                attempt(next);
              },
              error === null ? 0 : WRITE_RETRY_MS,
            );
        });
      };
      attempt(0);
    });
  }

  onData(listener: (chunk: Uint8Array) => void): Unsubscribe {
    return this.data.add(listener);
  }

  onClose(listener: (error?: Error) => void): Unsubscribe {
    return this.closes.add(listener);
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const readerClosed = this.reader.closed
      ? Promise.resolve()
      : new Promise<void>((resolve) =>
          this.reader.once('close', () => {
            resolve();
          }),
        );
    this.reader.destroy();
    await readerClosed;
    this.ended = true;
    await new Promise<void>((resolve) => {
      // The port may already be gone (unplugged): closing its descriptor is all that is left.
      this.native.close(this.fd, () => {
        resolve();
      });
    });
  }
}

/**
 * The native open's failure as a person reads it: a port another program holds (its lock taken)
 * says so, with the code `EBUSY`; any other failure is the system's reason as the binding gives it.
 */
function openError(path: string, error: Error): Error {
  if (!/Cannot lock port/.test(error.message)) return error;
  return Object.assign(new Error(`another program holds ${path} (its lock is taken)`), { code: 'EBUSY' });
}

/**
 * Opens `path` with `settings`; rejects with the system's reason (ENOENT, EACCES), or with the
 * code `EBUSY` when another program holds the port.
 */
export async function openSerialLink(path: string, settings: LineSettings): Promise<SerialLink> {
  if (process.platform === 'win32')
    throw new Error('headsetd reads serial ports as POSIX terminals (Linux, macOS), not on Windows');
  const serial = await loadNative();
  const fd = await new Promise<number>((resolve, reject) => {
    serial.open(
      path,
      {
        baudRate: settings.baudRate,
        dataBits: 8,
        parity: 'none',
        stopBits: 1,
        rtscts: false,
        xon: false,
        xoff: false,
        xany: false,
        hupcl: true,
        lock: true,
        vmin: 1,
        vtime: 0,
      },
      (error, opened) => {
        if (error !== null) reject(openError(path, error));
        else resolve(opened);
      },
    );
  });
  let readFd: number;
  try {
    // libuv's terminal handle reopens the path it is given (to own its non-blocking flag): it is
    // given a descriptor of its own, so that the locked one stays as it is.
    readFd = openSync(path, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
  } catch (error) {
    await new Promise<void>((resolve) => {
      serial.close(fd, () => {
        resolve();
      });
    });
    throw error;
  }
  try {
    return new TtyLink(serial, fd, readFd);
  } catch (error) {
    closeSync(readFd);
    await new Promise<void>((resolve) => {
      serial.close(fd, () => {
        resolve();
      });
    });
    throw error;
  }
}
