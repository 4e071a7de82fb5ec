/**
 * Writes a whole buffer at a position of a file: `writeSync` may write less than asked (a signal,
 * a pipe, a nearly full disk), so the writers loop until every byte is down or it throws.
 */
import { writeSync } from 'node:fs';

export function writeFully(fd: number, buf: Buffer, position: number): void {
  let done = 0;
  while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done, position + done);
}
