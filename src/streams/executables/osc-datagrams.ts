/**
 * The `osc` built-in's layout of frames in OSC 1.0 datagrams (docs/builtins.md §osc), apart from
 * the socket so that it is tested on its bytes alone.
 *
 * Every datagram is a bundle. With `bundle` on it is tagged with the time of its first sample and
 * holds one inner bundle per sample, tagged with that sample's time, that holds the sample's
 * messages; with `bundle` off it is tagged "immediately" and holds the messages themselves, in
 * sample order. A datagram never exceeds `maxDatagramBytes`: samples are spread over as many
 * datagrams as needed, and a sample whose messages do not fit one datagram is split over several
 * (each part in an inner bundle with the sample's time). A single message that alone cannot fit is
 * not sent and is counted.
 */
import type { Frame } from '../../core/frame.js';
import {
  encodeOscPrefix,
  ntpTimeTag,
  OSC_BUNDLE_HEAD_BYTES,
  OSC_IMMEDIATELY,
  type OscTimeTag,
  writeOscBundleHead,
} from '../../formats/osc.js';

export type OscMode = 'channels' | 'samples';

export interface OscLayout {
  mode: OscMode;
  /** The address (`samples`), or the prefix of each channel's address (`channels`). */
  address: string;
  bundle: boolean;
  maxDatagramBytes: number;
}

export interface PackedFrame {
  datagrams: Uint8Array[];
  /** Messages left out because one alone is larger than a datagram may be. */
  oversize: number;
}

/** Characters OSC 1.0 forbids in an address part (besides non-printable ones): `' ' # * , / ? [ ] { }`. */
const RESERVED = new Set([' ', '#', '*', ',', '/', '?', '[', ']', '{', '}']);

/**
 * The address of a channel under `prefix`: each dot of its name starts a new part (`O1.alpha` →
 * `<prefix>/O1/alpha`); a character OSC does not allow in an address (space, `#*,/?[]{}`, control
 * and non-ASCII characters) becomes `_`, and an empty part `_`.
 */
export function channelAddress(prefix: string, channel: string): string {
  const parts = channel.split('.').map((part) => {
    let out = '';
    for (const ch of part) {
      const code = ch.codePointAt(0) ?? 0;
      out += code <= 0x20 || code >= 0x7f || RESERVED.has(ch) ? '_' : ch;
    }
    return out === '' ? '_' : out;
  });
  return `${prefix}/${parts.join('/')}`;
}

/** Builds datagrams of at most `max` bytes, one at a time, in a scratch buffer. */
class DatagramWriter {
  private readonly scratch: Uint8Array;
  private readonly view: DataView;
  private offset = 0;
  /** Where the open inner bundle's size goes, or -1. */
  private innerAt = -1;
  readonly out: Uint8Array[] = [];

  constructor(readonly max: number) {
    this.scratch = new Uint8Array(max);
    this.view = new DataView(this.scratch.buffer);
  }

  get open(): boolean {
    return this.offset > 0;
  }

  get innerOpen(): boolean {
    return this.innerAt >= 0;
  }

  room(): number {
    return this.max - this.offset;
  }

  start(tag: OscTimeTag): void {
    this.offset = writeOscBundleHead(this.view, 0, tag);
  }

  beginInner(tag: OscTimeTag): void {
    this.innerAt = this.offset;
    this.offset = writeOscBundleHead(this.view, this.offset + 4, tag);
  }

  endInner(): void {
    this.view.setInt32(this.innerAt, this.offset - this.innerAt - 4);
    this.innerAt = -1;
  }

  /** One message: its prefix (address and type tags) then `count` float32 values from `data` at `from`. */
  message(prefix: Uint8Array, data: Float32Array, from: number, count: number): void {
    this.view.setInt32(this.offset, prefix.length + 4 * count);
    this.scratch.set(prefix, this.offset + 4);
    let at = this.offset + 4 + prefix.length;
    for (let i = 0; i < count; i++, at += 4) this.view.setFloat32(at, data[from + i] as number);
    this.offset = at;
  }

  flush(): void {
    if (this.innerAt >= 0) this.endInner();
    if (this.offset > 0) this.out.push(this.scratch.slice(0, this.offset));
    this.offset = 0;
  }
}

/** Packs frames into datagrams; caches each channel's encoded address while the channels stay. */
export class OscPacker {
  private channels: readonly string[] = [];
  /** One prefix per channel (`channels`), or one for the whole sample (`samples`). */
  private prefixes: Uint8Array[] = [];

  constructor(private readonly layout: OscLayout) {}

  private prefixesFor(channels: readonly string[]): Uint8Array[] {
    const same = channels.length === this.channels.length && channels.every((c, i) => c === this.channels[i]);
    if (!same || this.prefixes.length === 0) {
      this.channels = [...channels];
      this.prefixes =
        this.layout.mode === 'channels'
          ? channels.map((c) => encodeOscPrefix(channelAddress(this.layout.address, c), 1))
          : [encodeOscPrefix(this.layout.address, channels.length)];
    }
    return this.prefixes;
  }

  pack(frame: Frame): PackedFrame {
    const width = frame.channels.length;
    const writer = new DatagramWriter(this.layout.maxDatagramBytes);
    if (width === 0) return { datagrams: writer.out, oversize: 0 };
    const prefixes = this.prefixesFor(frame.channels);
    const perMessage = this.layout.mode === 'channels' ? 1 : width;
    const messageBytes = prefixes.map((p) => 4 + p.length + 4 * perMessage);
    const sampleBytes = messageBytes.reduce((a, b) => a + b, 0);
    const rows = frame.data.length / width;
    // Bytes around the messages: the datagram's bundle head, and each sample's inner bundle.
    const inner = this.layout.bundle ? 4 + OSC_BUNDLE_HEAD_BYTES : 0;
    let oversize = 0;
    for (let row = 0; row < rows; row++) {
      const tag = this.layout.bundle
        ? ntpTimeTag(frame.timestamp + (row * 1000) / frame.sampleRate)
        : OSC_IMMEDIATELY;
      if (inner + sampleBytes > writer.room()) writer.flush();
      const whole = OSC_BUNDLE_HEAD_BYTES + inner + sampleBytes <= writer.max;
      for (let m = 0; m < prefixes.length; m++) {
        const bytes = messageBytes[m] as number;
        if (OSC_BUNDLE_HEAD_BYTES + inner + bytes > writer.max) {
          oversize++;
          continue;
        }
        // Only a sample too large for one datagram is cut between messages.
        if (!whole && writer.open && bytes > writer.room()) writer.flush();
        if (!writer.open) writer.start(tag);
        if (this.layout.bundle && !writer.innerOpen) writer.beginInner(tag);
        writer.message(
          prefixes[m] as Uint8Array,
          frame.data,
          row * width + (perMessage === 1 ? m : 0),
          perMessage,
        );
      }
      if (writer.innerOpen) writer.endInner();
    }
    writer.flush();
    return { datagrams: writer.out, oversize };
  }
}
