/**
 * A running stream's latest status in memory shared by its worker and the main thread: the worker
 * writes it every snapshot period, and the main thread reads it when something asks for the
 * status, so the period's snapshots wake the API's thread not at all (docs/architecture.md §Data
 * plane). What must arrive (a change of state, an event, log lines, a reply) is still a message.
 *
 * One writer and one reader, guarded as a sequence lock: the writer makes the version odd, writes
 * the JSON text and its length, and makes it even again; the reader copies the text and keeps it
 * only when the version was the same even number before and after.
 */

/** Room for one status as JSON text (a stream of dozens of nodes takes a few KiB). */
const BOARD_BYTES = 256 * 1024;
const HEADER_BYTES = 8;

export class StatusBoard {
  private readonly header: Int32Array;
  private readonly bytes: Uint8Array;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  /** A new board's memory, to hand to both threads. */
  static memory(): SharedArrayBuffer {
    return new SharedArrayBuffer(HEADER_BYTES + BOARD_BYTES);
  }

  constructor(memory: SharedArrayBuffer) {
    this.header = new Int32Array(memory, 0, 2);
    this.bytes = new Uint8Array(memory, HEADER_BYTES);
  }

  /** Writes `value` as JSON; false (nothing written) when its text does not fit. */
  write(value: unknown): boolean {
    const text = JSON.stringify(value);
    // UTF-8 takes at most three bytes per UTF-16 unit.
    if (text.length * 3 > this.bytes.length) return false;
    const version = Atomics.load(this.header, 0);
    Atomics.store(this.header, 0, version + 1);
    const { written } = this.encoder.encodeInto(text, this.bytes);
    Atomics.store(this.header, 1, written);
    Atomics.store(this.header, 0, version + 2);
    return true;
  }

  /** The last value written, or undefined when none was (or the writer was in the middle, thrice). */
  read(): unknown {
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = Atomics.load(this.header, 0);
      if (before === 0) return undefined;
      if (before % 2 === 1) continue;
      const length = Atomics.load(this.header, 1);
      // A copy: text is decoded from memory of its own, never from the shared one the writer uses.
      const text = this.bytes.slice(0, length);
      if (Atomics.load(this.header, 0) === before) return JSON.parse(this.decoder.decode(text)) as unknown;
    }
    return undefined;
  }
}
