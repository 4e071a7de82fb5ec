/**
 * The binary form of a frame, sent by a websocket node with `format: 'binary'` (one WebSocket
 * binary message per frame). All numbers are little-endian.
 *
 * | offset | size   | field                                                             |
 * |--------|--------|-------------------------------------------------------------------|
 * | 0      | 4      | magic: ASCII `HSF1`                                               |
 * | 4      | 1      | layout version: 1                                                 |
 * | 5      | 1      | flags: bit 0 = discontinuity; bit 1 = units; other bits 0         |
 * | 6      | 2      | C: channel count (uint16)                                         |
 * | 8      | 4      | N: sample count (uint32)                                          |
 * | 12     | 4      | H: header length in bytes = offset of the samples (uint32)        |
 * | 16     | 8      | seq (float64; an integer, exact up to 2^53)                       |
 * | 24     | 8      | timestamp of the first sample, ms since the Unix epoch (float64)  |
 * | 32     | 8      | sampleRate, Hz (float64)                                          |
 * | 40     | ...    | C channel names: uint16 byte length, then that many UTF-8 bytes   |
 * | ...    | ...    | with flag bit 1 only: C units, each as a name is                  |
 * | ...    | 0..3   | zero padding so that H is a multiple of 4                         |
 * | H      | 4·N·C  | samples, float32, row-major: sample after sample (`data[i*C + c]`)|
 *
 * A reader can skip to the samples with H and need not parse the names (nor the units, which a
 * reader of the layout before units skips that way too); the padding makes the
 * samples 4-byte aligned, so a reader may view them in place as a Float32Array (little-endian host).
 */
import type { Frame } from './frame.js';

export const BINARY_FRAME_MAGIC = 'HSF1';
export const BINARY_FRAME_VERSION = 1;
const FIXED_HEADER = 40;
const FLAG_DISCONTINUITY = 1;
const FLAG_UNITS = 2;

const encoder = new TextEncoder();
/** On little-endian hosts (all the headset's) samples are copied as a block instead of one by one. */
const LITTLE_ENDIAN_HOST = new Uint8Array(Float32Array.of(1).buffer)[3] === 0x3f;
const decoder = new TextDecoder('utf-8', { fatal: true });
const MAGIC_BYTES = encoder.encode(BINARY_FRAME_MAGIC);

/**
 * The channel names (and units) of the last frame encoded, laid out as in the header (from offset
 * 40 to H). A stream sends frame after frame with the same channels: their names are encoded once,
 * not per frame (by profile the largest part of encoding a small frame).
 */
let lastChannels: readonly string[] = [];
let lastUnits: readonly string[] | undefined;
let lastNames = new Uint8Array(0);

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((name, c) => name === b[c]));
}

function namesBlock(channels: readonly string[], units: readonly string[] | undefined): Uint8Array {
  if (
    sameList(channels, lastChannels) &&
    (units === undefined ? lastUnits === undefined : lastUnits !== undefined && sameList(units, lastUnits))
  ) {
    return lastNames;
  }
  const names = [...channels, ...(units ?? [])].map((name) => encoder.encode(name));
  const namesBytes = names.reduce((sum, n) => sum + 2 + n.length, 0);
  const block = new Uint8Array(Math.ceil((FIXED_HEADER + namesBytes) / 4) * 4 - FIXED_HEADER);
  const view = new DataView(block.buffer);
  let offset = 0;
  for (const name of names) {
    if (name.length > 0xffff) throw new RangeError('a channel name or unit is longer than 65535 bytes');
    view.setUint16(offset, name.length, true);
    block.set(name, offset + 2);
    offset += 2 + name.length;
  }
  lastChannels = [...channels];
  lastUnits = units === undefined ? undefined : [...units];
  lastNames = block;
  return block;
}

/** Encodes a frame (see the layout above). */
export function encodeFrameBinary(frame: Frame): Uint8Array {
  const width = frame.channels.length;
  if (width > 0xffff) throw new RangeError(`a binary frame holds at most 65535 channels; got ${width}`);
  const names = namesBlock(frame.channels, frame.units);
  const headerLength = FIXED_HEADER + names.length;
  const samples = width === 0 ? 0 : frame.data.length / width;
  const bytes = new Uint8Array(headerLength + frame.data.length * 4);
  const view = new DataView(bytes.buffer);
  bytes.set(MAGIC_BYTES, 0);
  view.setUint8(4, BINARY_FRAME_VERSION);
  view.setUint8(
    5,
    (frame.discontinuity === true ? FLAG_DISCONTINUITY : 0) | (frame.units === undefined ? 0 : FLAG_UNITS),
  );
  view.setUint16(6, width, true);
  view.setUint32(8, samples, true);
  view.setUint32(12, headerLength, true);
  view.setFloat64(16, frame.seq, true);
  view.setFloat64(24, frame.timestamp, true);
  view.setFloat64(32, frame.sampleRate, true);
  bytes.set(names, FIXED_HEADER);
  if (LITTLE_ENDIAN_HOST) {
    new Float32Array(bytes.buffer, headerLength, frame.data.length).set(frame.data);
  } else {
    for (let i = 0; i < frame.data.length; i++)
      view.setFloat32(headerLength + i * 4, frame.data[i] ?? 0, true);
  }
  return bytes;
}

/** Decodes a binary frame; throws RangeError on anything that does not follow the layout. */
export function decodeFrameBinary(bytes: Uint8Array): Frame {
  if (bytes.length < FIXED_HEADER) throw new RangeError(`a binary frame has at least ${FIXED_HEADER} bytes`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (decoder.decode(bytes.subarray(0, 4)) !== BINARY_FRAME_MAGIC)
    throw new RangeError('not a binary frame (magic)');
  const version = view.getUint8(4);
  if (version !== BINARY_FRAME_VERSION) throw new RangeError(`unsupported binary frame version ${version}`);
  const flags = view.getUint8(5);
  const width = view.getUint16(6, true);
  const samples = view.getUint32(8, true);
  const headerLength = view.getUint32(12, true);
  if (headerLength + samples * width * 4 !== bytes.length) {
    throw new RangeError(`binary frame length ${bytes.length} does not match its header`);
  }
  const texts: string[] = [];
  let offset = FIXED_HEADER;
  const count = (flags & FLAG_UNITS) !== 0 ? 2 * width : width;
  for (let c = 0; c < count; c++) {
    if (offset + 2 > headerLength) throw new RangeError('binary frame channel names overrun the header');
    const length = view.getUint16(offset, true);
    if (offset + 2 + length > headerLength)
      throw new RangeError('binary frame channel names overrun the header');
    texts.push(decoder.decode(bytes.subarray(offset + 2, offset + 2 + length)));
    offset += 2 + length;
  }
  const channels = texts.slice(0, width);
  const data = new Float32Array(samples * width);
  if (LITTLE_ENDIAN_HOST) new Uint8Array(data.buffer).set(bytes.subarray(headerLength));
  else for (let i = 0; i < data.length; i++) data[i] = view.getFloat32(headerLength + i * 4, true);
  return {
    seq: view.getFloat64(16, true),
    timestamp: view.getFloat64(24, true),
    sampleRate: view.getFloat64(32, true),
    channels,
    data,
    ...((flags & FLAG_UNITS) !== 0 ? { units: texts.slice(width) } : {}),
    ...((flags & FLAG_DISCONTINUITY) !== 0 ? { discontinuity: true } : {}),
  };
}
