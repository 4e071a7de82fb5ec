/**
 * The binary encoding (docs/node-protocol.md §Binary): each message is a little-endian u32 length,
 * then that many bytes: a u8 type and a body. Frames carry a packed header and raw float32
 * samples; every other message carries the same UTF-8 JSON object as in NDJSON.
 */
import { endianness } from 'node:os';
import type { Frame } from '../frame.js';
import { checkFrameHeader, messageFromJson, messageToJson } from './json-messages.js';
import {
  withDecoded,
  type FrameMessage,
  MAX_MESSAGE_BYTES,
  type MessageDecoder,
  ProtocolError,
  type ProtocolMessage,
} from './messages.js';

/** Message type bytes. */
export const BINARY_TYPES = { config: 1, frame: 2, signal: 3, ready: 4, error: 5, info: 6 } as const;

const TYPE_NAMES = new Map<number, ProtocolMessage['type']>(
  Object.entries(BINARY_TYPES).map(([name, code]) => [code, name as ProtocolMessage['type']]),
);

const LENGTH_BYTES = 4;
const LITTLE_ENDIAN_HOST = endianness() === 'LE';
const FLAG_DISCONTINUITY = 0x01;
/** The frame has `units`: C unit strings follow the channel names. */
const FLAG_UNITS = 0x02;
const MAX_NAME_BYTES = 0xffff;

function encodeName(name: string, what: string): Buffer {
  const bytes = Buffer.from(name, 'utf8');
  if (bytes.length > MAX_NAME_BYTES) throw new RangeError(`${what} is longer than ${MAX_NAME_BYTES} bytes`);
  return bytes;
}

/**
 * The channel list of the last frame encoded, as its wire bytes (u16 length + UTF-8, each name).
 * A stream's frames nearly always carry the same channels, so the names are encoded once, not 21
 * times per frame (the largest cost of encoding a small frame, by profile).
 */
let lastChannels: readonly string[] = [];
let lastChannelBytes: Buffer = Buffer.alloc(0);
/** The same for the units of the last frame encoded that had units. */
let lastUnits: readonly string[] = [];
let lastUnitBytes: Buffer = Buffer.alloc(0);

function sameChannels(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

function textsBytes(texts: readonly string[], what: string): Buffer {
  const names = texts.map((name) => encodeName(name, what));
  const out = Buffer.allocUnsafe(names.reduce((sum, n) => sum + 2 + n.length, 0));
  let at = 0;
  for (const name of names) {
    at = out.writeUInt16LE(name.length, at);
    at += name.copy(out, at);
  }
  return out;
}

function channelBytes(channels: readonly string[]): Buffer {
  if (sameChannels(channels, lastChannels)) return lastChannelBytes;
  if (channels.length > 0xffff) throw new RangeError('a frame has more than 65535 channels');
  lastChannelBytes = textsBytes(channels, 'a channel name');
  lastChannels = [...channels];
  return lastChannelBytes;
}

function unitBytes(units: readonly string[] | undefined, width: number): Buffer {
  if (units === undefined) return EMPTY;
  if (units.length !== width) {
    throw new RangeError(`a frame's units has ${units.length} entries for ${width} channels`);
  }
  if (sameChannels(units, lastUnits)) return lastUnitBytes;
  lastUnitBytes = textsBytes(units, 'a unit');
  lastUnits = [...units];
  return lastUnitBytes;
}

const EMPTY = Buffer.alloc(0);

function encodeFrame(message: FrameMessage): Buffer {
  const { frame } = message;
  const port = encodeName(message.port, 'the port name');
  const names = channelBytes(frame.channels);
  const width = frame.channels.length;
  const units = unitBytes(frame.units, width);
  const rows = width === 0 ? 0 : frame.data.length / width;
  const headerBytes = 1 + 1 + 2 + port.length + 8 + 8 + 8 + 2 + names.length + units.length + 4;
  const total = LENGTH_BYTES + headerBytes + rows * width * 4;
  // Every byte is written below, so the buffer need not be zeroed first.
  const out = Buffer.allocUnsafe(total);
  let at = out.writeUInt32LE(total - LENGTH_BYTES, 0);
  at = out.writeUInt8(BINARY_TYPES.frame, at);
  at = out.writeUInt8(
    (frame.discontinuity === true ? FLAG_DISCONTINUITY : 0) | (frame.units === undefined ? 0 : FLAG_UNITS),
    at,
  );
  at = out.writeUInt16LE(port.length, at);
  at += port.copy(out, at);
  at = out.writeBigUInt64LE(BigInt(frame.seq), at);
  at = out.writeDoubleLE(frame.timestamp, at);
  at = out.writeDoubleLE(frame.sampleRate, at);
  at = out.writeUInt16LE(width, at);
  at += names.copy(out, at);
  at += units.copy(out, at);
  at = out.writeUInt32LE(rows, at);
  // Raw little-endian float32, row-major, exactly as the frame holds them in memory.
  const count = rows * width;
  if (LITTLE_ENDIAN_HOST) {
    Buffer.from(frame.data.buffer, frame.data.byteOffset, count * 4).copy(out, at);
  } else {
    for (let i = 0; i < count; i += 1) at = out.writeFloatLE(frame.data[i] ?? Number.NaN, at);
  }
  return out;
}

/** One message in the binary encoding, length prefix included. */
export function encodeBinary(message: ProtocolMessage): Buffer {
  if (message.type === 'frame') return encodeFrame(message);
  const body = Buffer.from(JSON.stringify(messageToJson(message)), 'utf8');
  const out = Buffer.alloc(LENGTH_BYTES + 1 + body.length);
  out.writeUInt32LE(1 + body.length, 0);
  out.writeUInt8(BINARY_TYPES[message.type], LENGTH_BYTES);
  body.copy(out, LENGTH_BYTES + 1);
  return out;
}

/** The channel list of the last frame decoded, and its wire bytes (see `Reader.channels`). */
let lastDecodedChannels: readonly string[] = Object.freeze([]);
let lastDecodedChannelBytes: Buffer = Buffer.alloc(0);

/** A bounds-checked reader over one message's bytes. */
class Reader {
  private at = 0;
  constructor(private readonly bytes: Buffer) {}

  private need(n: number): number {
    if (this.at + n > this.bytes.length) throw new ProtocolError('a binary frame message is truncated');
    const start = this.at;
    this.at += n;
    return start;
  }
  u8(): number {
    return this.bytes.readUInt8(this.need(1));
  }
  u16(): number {
    return this.bytes.readUInt16LE(this.need(2));
  }
  u32(): number {
    return this.bytes.readUInt32LE(this.need(4));
  }
  u64(): bigint {
    return this.bytes.readBigUInt64LE(this.need(8));
  }
  f64(): number {
    return this.bytes.readDoubleLE(this.need(8));
  }
  text(): string {
    const length = this.u16();
    const start = this.need(length);
    return this.bytes.toString('utf8', start, start + length);
  }
  /**
   * `width` channel names. When their bytes are those of the previous frame decoded, that frame's
   * (frozen) list is handed out again: no UTF-8 decoding and no new strings per frame, and the
   * frames of one stream share one list, as frames made in the runtime do.
   */
  channels(width: number): readonly string[] {
    const start = this.at;
    let end = start;
    for (let c = 0; c < width; c += 1) {
      if (end + 2 > this.bytes.length) break;
      end += 2 + this.bytes.readUInt16LE(end);
    }
    if (
      width === lastDecodedChannels.length &&
      end <= this.bytes.length &&
      end - start === lastDecodedChannelBytes.length &&
      this.bytes.compare(lastDecodedChannelBytes, 0, lastDecodedChannelBytes.length, start, end) === 0
    ) {
      this.at = end;
      return lastDecodedChannels;
    }
    const channels: string[] = [];
    for (let c = 0; c < width; c += 1) channels.push(this.text());
    lastDecodedChannels = Object.freeze(channels);
    lastDecodedChannelBytes = Buffer.from(this.bytes.subarray(start, this.at));
    return lastDecodedChannels;
  }
  rest(): Buffer {
    return this.bytes.subarray(this.need(this.bytes.length - this.at));
  }
}

/** Copies `count` float32 into an aligned array of our own: the bytes' offset need not be a multiple of 4. */
function samplesFromBytes(bytes: Buffer, count: number): Float32Array {
  const data = new Float32Array(count);
  if (LITTLE_ENDIAN_HOST) {
    new Uint8Array(data.buffer).set(bytes.subarray(0, count * 4));
  } else {
    for (let i = 0; i < count; i += 1) data[i] = bytes.readFloatLE(i * 4);
  }
  return data;
}

function decodeFrame(body: Buffer): FrameMessage {
  const what = 'binary frame message';
  const reader = new Reader(body);
  const flags = reader.u8();
  const port = reader.text();
  const seq64 = reader.u64();
  if (seq64 > BigInt(Number.MAX_SAFE_INTEGER)) throw new ProtocolError(`${what}: 'seq' is too large`);
  const seq = Number(seq64);
  const timestamp = reader.f64();
  const sampleRate = reader.f64();
  if (!Number.isFinite(timestamp)) throw new ProtocolError(`${what}: 'timestamp' must be finite`);
  checkFrameHeader(seq, sampleRate, what);
  const width = reader.u16();
  const channels = reader.channels(width);
  let units: string[] | undefined;
  if ((flags & FLAG_UNITS) !== 0) {
    units = [];
    for (let c = 0; c < width; c += 1) units.push(reader.text());
  }
  const rows = reader.u32();
  const samples = reader.rest();
  if (samples.length !== rows * width * 4) {
    throw new ProtocolError(
      `${what}: ${samples.length} sample bytes for ${rows} samples of ${width} channels (expected ${rows * width * 4})`,
    );
  }
  const data = samplesFromBytes(samples, rows * width);
  const frame: Frame = {
    seq,
    timestamp,
    sampleRate,
    channels,
    data,
    ...(units === undefined ? {} : { units }),
    ...((flags & FLAG_DISCONTINUITY) !== 0 ? { discontinuity: true } : {}),
  };
  return { type: 'frame', port, frame };
}

function decodeMessage(type: number, body: Buffer): ProtocolMessage {
  const name = TYPE_NAMES.get(type);
  if (name === undefined) throw new ProtocolError(`unknown binary message type ${type}`);
  if (name === 'frame') return decodeFrame(body);
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ProtocolError(`the body of a binary ${name} message is not JSON`);
  }
  const message = messageFromJson(
    typeof json === 'object' && json !== null && !Array.isArray(json) ? { ...json, type: name } : json,
  );
  return message;
}

/** A streaming decoder of the binary encoding that refuses a length above `maxMessageBytes` before buffering it. */
export class BinaryDecoder implements MessageDecoder {
  /** Received bytes not yet decoded; joined only once a whole message is there, so a big message costs O(n). */
  private parts: Buffer[] = [];
  private partBytes = 0;
  /** Length of the message being received, once its prefix is known. */
  private expected: number | undefined;

  constructor(private readonly maxMessageBytes: number = MAX_MESSAGE_BYTES) {}

  get pendingBytes(): number {
    return this.partBytes;
  }

  push(chunk: Uint8Array): ProtocolMessage[] {
    if (chunk.length === 0) return [];
    // Copy: the caller may reuse its chunk's memory.
    this.parts.push(Buffer.from(chunk));
    this.partBytes += chunk.length;
    const messages: ProtocolMessage[] = [];
    for (;;) {
      if (this.expected === undefined) {
        if (this.partBytes < LENGTH_BYTES) break;
        const length = this.join().readUInt32LE(0);
        withDecoded(messages, () => {
          if (length === 0) throw new ProtocolError('a binary message has length 0');
          if (length > this.maxMessageBytes) {
            throw new ProtocolError(
              `a message of ${length} bytes was refused (the limit is ${this.maxMessageBytes} bytes)`,
            );
          }
        });
        this.expected = length;
      }
      if (this.partBytes < LENGTH_BYTES + this.expected) break;
      const all = this.join();
      const end = LENGTH_BYTES + this.expected;
      const body = all.subarray(LENGTH_BYTES + 1, end);
      messages.push(withDecoded(messages, () => decodeMessage(all.readUInt8(LENGTH_BYTES), body)));
      const tail = all.subarray(end);
      this.parts = tail.length === 0 ? [] : [tail];
      this.partBytes = tail.length;
      this.expected = undefined;
    }
    return messages;
  }

  private join(): Buffer {
    if (this.parts.length > 1) this.parts = [Buffer.concat(this.parts, this.partBytes)];
    return this.parts[0] ?? Buffer.alloc(0);
  }
}
