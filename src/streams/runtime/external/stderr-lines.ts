/**
 * Splits a child's stderr into lines for the node's log. A line is capped (a child writing a
 * megabyte without a newline costs 4 KiB of memory, not a megabyte), and the last few lines that
 * say something of the program are kept for the message of a failed start or a crash.
 */

/** Longest line kept, in bytes of UTF-8; the rest of a longer line is dropped up to its newline. */
export const MAX_LOG_LINE_BYTES = 4 * 1024;

const TRUNCATION_MARK = ' …[truncated]';

/**
 * Lines the node's log gets but the failure message leaves out: blank ones, a stack frame inside
 * Node's own modules and the version banner Node prints after an uncaught error. Without them,
 * the last lines of a crashed JavaScript node are its error and its own frames rather than Node's
 * module loader.
 */
const SAYS_NOTHING = [/^\s*$/, /^\s+at (?:.*\()?node:/, /^Node\.js v\d/];

export class StderrLines {
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private truncated = false;
  private readonly tail: string[] = [];

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly keep = 5,
    private readonly maxLineBytes = MAX_LOG_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(0x0a, start);
      if (end === -1) break;
      this.hold(chunk.subarray(start, end));
      this.flushLine();
      start = end + 1;
    }
    if (start < chunk.length) this.hold(chunk.subarray(start));
  }

  /** Emits an unfinished last line (the stream ended without a newline). */
  end(): void {
    if (this.partialBytes > 0 || this.truncated) this.flushLine();
  }

  /** The last lines written that say something of the program, oldest first. */
  lastLines(): readonly string[] {
    return this.tail;
  }

  private hold(bytes: Buffer): void {
    const room = this.maxLineBytes - this.partialBytes;
    if (bytes.length > room) this.truncated = true;
    const kept = bytes.subarray(0, Math.max(0, room));
    if (kept.length === 0) return;
    this.partial.push(Buffer.from(kept));
    this.partialBytes += kept.length;
  }

  private flushLine(): void {
    let line = Buffer.concat(this.partial).toString('utf8');
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (this.truncated) line += TRUNCATION_MARK;
    this.partial = [];
    this.partialBytes = 0;
    this.truncated = false;
    if (!SAYS_NOTHING.some((pattern) => pattern.test(line))) {
      this.tail.push(line);
      if (this.tail.length > this.keep) this.tail.shift();
    }
    this.onLine(line);
  }
}
