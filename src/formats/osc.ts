/**
 * Open Sound Control 1.0 encoding (opensoundcontrol.org, "The Open Sound Control 1.0
 * Specification"): messages with int32 `i`, float32 `f`, string `s`, blob `b` and time tag `t`
 * arguments, and bundles. Big-endian throughout; every string (the address, the type tag string and
 * `s` arguments) is ASCII ended by one to four NULs so that its size is a multiple of 4; a blob is
 * its int32 size and its bytes padded with NULs to a multiple of 4. A bundle is `#bundle`, its
 * 64-bit NTP time tag, then each element as an int32 size followed by its bytes.
 *
 * Written here rather than taken from npm: an encoder of these five types is a page, and the
 * node's hot path writes each sample's float straight into the datagram behind a cached address
 * and type tag prefix ({@link encodeOscPrefix}), which a general library would not let it do.
 */
import { FormatError } from './format-error.js';

/** An NTP time stamp: seconds since 1900-01-01 UTC and the fraction of a second in 2^-32 s. */
export interface OscTimeTag {
  readonly seconds: number;
  readonly fraction: number;
}

export type OscArgument =
  | { readonly type: 'i'; readonly value: number }
  | { readonly type: 'f'; readonly value: number }
  | { readonly type: 's'; readonly value: string }
  | { readonly type: 'b'; readonly value: Uint8Array }
  | { readonly type: 't'; readonly value: OscTimeTag };

/** The special time tag "immediately" (63 zero bits then a one). */
export const OSC_IMMEDIATELY: OscTimeTag = { seconds: 0, fraction: 1 };

/** Seconds from the NTP epoch (1900) to the Unix epoch (1970). */
export const NTP_UNIX_OFFSET_S = 2_208_988_800;

/** Bytes of a bundle's head: `#bundle\0` and its time tag. */
export const OSC_BUNDLE_HEAD_BYTES = 16;

const BUNDLE_TAG = new TextEncoder().encode('#bundle\0');
const TWO_32 = 2 ** 32;

/** The NTP time tag of a Unix time in ms (fraction rounded to the nearest 2^-32 s). */
export function ntpTimeTag(unixMs: number): OscTimeTag {
  const total = unixMs / 1000 + NTP_UNIX_OFFSET_S;
  let seconds = Math.floor(total);
  // The fraction from the ms remainder rather than from `total`, whose 2^32-sized integer part
  // leaves fewer bits for it.
  const restMs = unixMs - (seconds - NTP_UNIX_OFFSET_S) * 1000;
  let fraction = Math.round((restMs / 1000) * TWO_32);
  if (fraction >= TWO_32) {
    seconds += 1;
    fraction -= TWO_32;
  } else if (fraction < 0) {
    seconds -= 1;
    fraction += TWO_32;
  }
  return { seconds, fraction };
}

/** Size of a string once NUL-ended and padded to a multiple of 4. */
export function oscStringBytes(text: string): number {
  return (text.length + 4) & ~3;
}

/** Writes an OSC string at `offset` (its NULs included); returns the offset after it. */
function writeString(view: DataView, offset: number, text: string): number {
  const end = offset + oscStringBytes(text);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0 || code > 0x7e) {
      throw new FormatError(`OSC strings are printable ASCII; '${text}' has character ${code} at ${i}`, {
        field: 'string',
      });
    }
    view.setUint8(offset + i, code);
  }
  for (let i = offset + text.length; i < end; i++) view.setUint8(i, 0);
  return end;
}

function writeTimeTag(view: DataView, offset: number, tag: OscTimeTag): void {
  view.setUint32(offset, tag.seconds >>> 0);
  view.setUint32(offset + 4, tag.fraction >>> 0);
}

function argumentBytes(arg: OscArgument): number {
  switch (arg.type) {
    case 'i':
    case 'f':
      return 4;
    case 't':
      return 8;
    case 's':
      return oscStringBytes(arg.value);
    case 'b':
      return 4 + ((arg.value.length + 3) & ~3);
  }
}

/** An OSC message: the address, the type tag string (`,` and one letter per argument), the arguments. */
export function encodeOscMessage(address: string, args: readonly OscArgument[]): Uint8Array {
  const tags = `,${args.map((a) => a.type).join('')}`;
  const size =
    oscStringBytes(address) + oscStringBytes(tags) + args.reduce((n, a) => n + argumentBytes(a), 0);
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  let offset = writeString(view, 0, address);
  offset = writeString(view, offset, tags);
  for (const arg of args) {
    switch (arg.type) {
      case 'i':
        view.setInt32(offset, arg.value);
        offset += 4;
        break;
      case 'f':
        view.setFloat32(offset, arg.value);
        offset += 4;
        break;
      case 't':
        writeTimeTag(view, offset, arg.value);
        offset += 8;
        break;
      case 's':
        offset = writeString(view, offset, arg.value);
        break;
      case 'b':
        view.setInt32(offset, arg.value.length);
        bytes.set(arg.value, offset + 4);
        offset += argumentBytes(arg);
        break;
    }
  }
  return bytes;
}

/**
 * The address and type tag string of a message whose arguments are `floats` float32 values: the
 * prefix a sender writes once and then follows with the values (4 bytes each, big-endian).
 */
export function encodeOscPrefix(address: string, floats: number): Uint8Array {
  const tags = `,${'f'.repeat(floats)}`;
  const bytes = new Uint8Array(oscStringBytes(address) + oscStringBytes(tags));
  const view = new DataView(bytes.buffer);
  writeString(view, writeString(view, 0, address), tags);
  return bytes;
}

/** Writes a bundle's head (`#bundle`, time tag) at `offset`; returns the offset after it. */
export function writeOscBundleHead(view: DataView, offset: number, tag: OscTimeTag): number {
  for (let i = 0; i < BUNDLE_TAG.length; i++) view.setUint8(offset + i, BUNDLE_TAG[i] as number);
  writeTimeTag(view, offset + 8, tag);
  return offset + OSC_BUNDLE_HEAD_BYTES;
}

/** A bundle of messages or bundles (each already encoded), under one time tag. */
export function encodeOscBundle(tag: OscTimeTag, elements: readonly Uint8Array[]): Uint8Array {
  const size = elements.reduce((n, e) => n + 4 + e.length, OSC_BUNDLE_HEAD_BYTES);
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  let offset = writeOscBundleHead(view, 0, tag);
  for (const element of elements) {
    view.setInt32(offset, element.length);
    bytes.set(element, offset + 4);
    offset += 4 + element.length;
  }
  return bytes;
}
