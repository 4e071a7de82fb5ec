/**
 * The NDJSON encoding (docs/node-protocol.md §NDJSON): one JSON object per line, UTF-8, lines
 * ended by `\n` (a `\r` before it is ignored, blank lines are skipped).
 */
import { frameJsonText } from '../frame.js';
import { messageFromJson, messageToJson } from './json-messages.js';
import {
  MAX_MESSAGE_BYTES,
  type MessageDecoder,
  ProtocolError,
  type ProtocolMessage,
  withDecoded,
} from './messages.js';

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * One message as one line of UTF-8 JSON, newline included. A frame is written by the frame's one
 * JSON encoder (core/frame.ts), with `type` and `port` first and no marker or annotation: the text
 * of `JSON.stringify(messageToJson(message))`, without building the rows as arrays first.
 */
export function encodeNdjson(message: ProtocolMessage): Buffer {
  if (message.type === 'frame') {
    const lead = `"type":"frame","port":${JSON.stringify(message.port)}`;
    return Buffer.from(`${frameJsonText(message.frame, { lead, notes: false })}\n`, 'utf8');
  }
  return Buffer.from(`${JSON.stringify(messageToJson(message))}\n`, 'utf8');
}

/** A streaming NDJSON decoder that holds at most `maxMessageBytes` of an unfinished line. */
export class NdjsonDecoder implements MessageDecoder {
  private readonly parts: Uint8Array[] = [];
  private partBytes = 0;
  private readonly textDecoder = new TextDecoder('utf-8', { fatal: true });

  constructor(private readonly maxMessageBytes: number = MAX_MESSAGE_BYTES) {}

  get pendingBytes(): number {
    return this.partBytes;
  }

  push(chunk: Uint8Array): ProtocolMessage[] {
    const messages: ProtocolMessage[] = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) break;
      withDecoded(messages, () => {
        this.hold(chunk.subarray(start, end));
      });
      const line = this.take();
      start = end + 1;
      const message = withDecoded(messages, () => this.parseLine(line));
      if (message !== undefined) messages.push(message);
    }
    if (start < chunk.length)
      withDecoded(messages, () => {
        this.hold(chunk.subarray(start));
      });
    return messages;
  }

  private hold(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.partBytes + bytes.length > this.maxMessageBytes) {
      throw new ProtocolError(
        `a line longer than ${this.maxMessageBytes} bytes was refused (the limit of one message)`,
      );
    }
    // Copy: the caller may reuse its chunk's memory.
    this.parts.push(new Uint8Array(bytes));
    this.partBytes += bytes.length;
  }

  private take(): Uint8Array {
    const line = this.parts.length === 1 ? (this.parts[0] as Uint8Array) : Buffer.concat(this.parts);
    this.parts.length = 0;
    this.partBytes = 0;
    return line;
  }

  private parseLine(bytes: Uint8Array): ProtocolMessage | undefined {
    let length = bytes.length;
    if (length > 0 && bytes[length - 1] === CARRIAGE_RETURN) length -= 1;
    let text: string;
    try {
      text = this.textDecoder.decode(bytes.subarray(0, length));
    } catch {
      throw new ProtocolError('a line is not valid UTF-8');
    }
    if (text.trim() === '') return undefined;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
      throw new ProtocolError(
        `a line is not JSON: ${JSON.stringify(shown)} (write log lines to stderr, never to stdout)`,
      );
    }
    return messageFromJson(json);
  }
}
