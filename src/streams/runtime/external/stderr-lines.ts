/**
 * Splits a child's stderr into lines for the node's log. A line is capped (a child writing a
 * megabyte without a newline costs 4 KiB of memory, not a megabyte), and the last few lines are
 * kept for the message of a failed start or a crash.
 */

/** Longest line kept, in bytes of UTF-8; the rest of a longer line is dropped up to its newline. */
export const MAX_LOG_LINE_BYTES = 4 * 1024;

const TRUNCATION_MARK = ' …[truncated]';

export class StderrLines {
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private truncated = false;
  private readonly tail: string[] = [];

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly keep = 10,
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

  /** The last lines written, oldest first. */
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
    this.tail.push(line);
    if (this.tail.length > this.keep) this.tail.shift();
    this.onLine(line);
  }
}
