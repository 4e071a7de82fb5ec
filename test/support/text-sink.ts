/**
 * A writable stream that keeps what is written to it as text: the stdout or stderr of a client
 * command run in the test's process. Not a terminal unless made one (`isTTY`), as a pipe.
 * Written chunks are kept at once (the write completes in the same turn), so what a command
 * wrote is there when it returns.
 */
import { StringDecoder } from 'node:string_decoder';
import { Writable } from 'node:stream';

export class TextSink extends Writable {
  text = '';
  // A character split between two Buffer chunks is decoded whole.
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    readonly isTTY = false,
    /** Called with each piece written. */
    private readonly onText?: (text: string) => void,
  ) {
    super({ decodeStrings: false });
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, callback: () => void): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    this.text += text;
    this.onText?.(text);
    callback();
  }
}
