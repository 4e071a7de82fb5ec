/**
 * The Cyton's byte stream cut into what it carries: 33-byte data packets and `$$$`-terminated text
 * (the reset banner, answers to commands). Incremental: bytes arrive in chunks of any size, a packet
 * may be torn across chunks, and garbage may come between packets (a radio glitch, a packet torn
 * by a reset, text the board printed while streaming).
 *
 * A packet is taken only when the board certainly sent it whole; never guessed:
 * - its header (0xA0), its footer (0xC0-0xCF) 33 bytes on and the next packet's header right after
 *   it must all be in place;
 * - no header inside it may start a rival reading: a packet torn short (its bytes cut off by the
 *   radio) is followed by the next packet's header within the 33 bytes, and the torn bytes plus the
 *   start of the next packet can look like a packet (its byte 12 a footer, byte 13 a header). When
 *   a header inside the candidate starts a packet that is also followed by a header, the candidate
 *   is taken only when the two packets after it carry its sample number plus one and plus two and
 *   the rival's do not; otherwise its bytes are skipped (a whole packet followed at once by a loss
 *   is then lost too: in doubt, a row is lost and counted, never spliced);
 * - a packet that does not carry the sample number after the last packet taken just before it
 *   (the start, after skipped bytes, after lost packets) is taken only when the two packets after
 *   it carry its number plus one and plus two: a stray header, footer and header in garbage (about
 *   one in 2^20 positions of uniform garbage) is not enough.
 * Every byte not taken is counted (`skippedBytes`), each loss of sync once (`resyncs`), each header
 * where the next packet was due that did not start a whole packet once (`tornPackets`); the rows of
 * skipped packets are then lost by the sample counter (./sequencer.ts), never spliced. Bytes not
 * taken are kept as text until a `$$$` ends it (a message), a byte that is not text (ASCII) clears
 * it, or it grows past 4 KiB.
 *
 * Each packet carries the arrival time of the read that completed it (a packet held back for the
 * next header keeps the time of its own bytes, not that of the read that confirmed it).
 */
import {
  type CytonPacket,
  decodePacket,
  END_OF_TEXT,
  FOOTER_MAX,
  FOOTER_MIN,
  HEADER,
  PACKET_LENGTH,
} from './protocol.js';

export type ParsedItem =
  | { readonly kind: 'packet'; readonly packet: CytonPacket; readonly at: number }
  | { readonly kind: 'message'; readonly text: string };

/** Text kept while no `$$$` ends it; beyond it only the last half is kept. */
export const MAX_TEXT = 4096;

type Verdict = 'packet' | 'skip' | 'wait';
/**
 * Packets in sequence after one that does not continue the count before it is taken: two, so that
 * garbage even one byte in seven of which is a header or a footer makes a packet about once in
 * 10^9 bytes (uniform garbage, once in 10^16).
 */
const TRUST_CHAIN = 2;
/** Whether the packet at an offset is followed by the packet with the next sample number. */
type Chain = 'yes' | 'no' | 'unknown';

export class PacketParser {
  private buffer = new Uint8Array(0);
  /** When the bytes held in `buffer` arrived (the last read that added to them). */
  private heldAt = 0;
  /** The sample number of the packet taken just before the next byte; undefined out of sync. */
  private last: number | undefined;
  private text = '';
  /** Bytes that were not part of a packet (text and garbage). */
  skippedBytes = 0;
  /** Times the stream fell out of sync after a packet. */
  resyncs = 0;
  /**
   * Headers where the next packet was due that were not taken: a packet torn short, or one not
   * followed by the next header (the last before garbage: it cannot be told from a torn one).
   */
  tornPackets = 0;
  /** Packets accepted. */
  packets = 0;

  /** Forgets a partial packet and text (after a reset, or a reopened port). */
  reset(): void {
    this.buffer = new Uint8Array(0);
    this.last = undefined;
    this.text = '';
  }

  /** Feeds bytes that arrived at `at`; answers the packets and messages they complete, in order. */
  push(chunk: Uint8Array, at = 0): ParsedItem[] {
    const held = this.buffer.length;
    const joined = new Uint8Array(held + chunk.length);
    joined.set(this.buffer, 0);
    joined.set(chunk, held);
    const out = this.cut(joined, false, (end) => (end < held ? this.heldAt : at));
    this.heldAt = at;
    return out;
  }

  /**
   * The line went quiet (as after the last packet before `s`): a packet held back for the next
   * header is taken when it continues the sample count, as nothing else will vouch for it. Bytes
   * that may still become a packet stay held (a half packet, a packet awaiting the two after it):
   * the bytes that come next decide them (a text is not a header), so a pause of the board or a
   * late read on a loaded machine never costs a row.
   */
  flush(): ParsedItem[] {
    const heldAt = this.heldAt;
    return this.cut(this.buffer, true, () => heldAt);
  }

  /** Bytes held back, waiting for the rest of a packet or the next header. */
  get pending(): number {
    return this.buffer.length;
  }

  /** How much text is kept, waiting for its `$$$` (bounded by {@link MAX_TEXT}). */
  get textLength(): number {
    return this.text.length;
  }

  private cut(bytes: Uint8Array, quiet: boolean, arrival: (end: number) => number): ParsedItem[] {
    const out: ParsedItem[] = [];
    let i = 0;
    while (i < bytes.length) {
      const verdict = this.judge(bytes, i, quiet);
      if (verdict === 'wait') break;
      if (verdict === 'packet') {
        this.text = '';
        const packet = decodePacket(bytes, i);
        out.push({ kind: 'packet', packet, at: arrival(i + PACKET_LENGTH - 1) });
        this.packets++;
        this.last = packet.sampleNumber;
        i += PACKET_LENGTH;
        continue;
      }
      if (this.last !== undefined) {
        this.resyncs++;
        if (bytes[i] === HEADER) this.tornPackets++;
      }
      this.last = undefined;
      this.skip(bytes[i] as number, out);
      i++;
    }
    this.buffer = bytes.slice(i);
    return out;
  }

  /**
   * Whether the bytes at `i` are a packet to take, to skip, or need more bytes to tell (`quiet`:
   * no more are coming for now).
   */
  private judge(bytes: Uint8Array, i: number, quiet: boolean): Verdict {
    if (bytes[i] !== HEADER) return 'skip';
    const length = bytes.length;
    if (length - i < PACKET_LENGTH) return 'wait';
    if (!framed(bytes, i)) return 'skip';
    const continuing = this.last !== undefined && bytes[i + 1] === ((this.last + 1) & 0xff);
    // The line went quiet after it (the last packet before `s`): the count vouches for it.
    if (length - i === PACKET_LENGTH) return quiet && continuing ? 'packet' : 'wait';
    if (bytes[i + PACKET_LENGTH] !== HEADER) return 'skip';
    const trusted = continuing ? 'yes' : chain(bytes, i, TRUST_CHAIN);
    if (trusted !== 'yes') return trusted === 'unknown' ? 'wait' : 'skip';
    const rival = rivalIn(bytes, i);
    if (rival === undefined) return 'packet';
    if (rival === 'unknown') return 'wait';
    // Two readings of these bytes: the one in place is taken only when the two packets after it
    // carry its next numbers and the rival's do not (one next number alone matches a data byte
    // once in 256 splices). In doubt (a loss right after it), it is skipped and its row lost,
    // never spliced.
    const own = chain(bytes, i, TRUST_CHAIN);
    const theirs = chain(bytes, rival, TRUST_CHAIN);
    if (own === 'unknown' || theirs === 'unknown') return 'wait';
    return own === 'yes' && theirs !== 'yes' ? 'packet' : 'skip';
  }

  private skip(byte: number, out: ParsedItem[]): void {
    this.skippedBytes++;
    // The board's texts are ASCII lines: a byte outside them (a packet's footer, garbage) ends any
    // text before it, so that a message never begins with the bytes of a packet not taken.
    if (!isTextByte(byte)) {
      this.text = '';
      return;
    }
    this.text += String.fromCharCode(byte);
    if (this.text.endsWith(END_OF_TEXT)) {
      out.push({ kind: 'message', text: this.text });
      this.text = '';
    } else if (this.text.length > MAX_TEXT) {
      this.text = this.text.slice(-MAX_TEXT / 2);
    }
  }
}

/** Printable ASCII, tab, line feed, carriage return: what the board's texts are made of. */
function isTextByte(byte: number): boolean {
  return (byte >= 0x20 && byte < 0x7f) || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** A header at `i` and a footer 33 bytes on. */
function framed(bytes: Uint8Array, i: number): boolean {
  if (bytes[i] !== HEADER || bytes.length - i < PACKET_LENGTH) return false;
  const footer = bytes[i + PACKET_LENGTH - 1] as number;
  return footer >= FOOTER_MIN && footer <= FOOTER_MAX;
}

/**
 * Whether the packet at `i` is followed by `depth` framed packets, each with the sample number after
 * the one before it.
 */
function chain(bytes: Uint8Array, i: number, depth = 1): Chain {
  for (let k = 1; k <= depth; k++) {
    const next = i + k * PACKET_LENGTH;
    if (bytes.length > next && bytes[next] !== HEADER) return 'no';
    if (bytes.length < next + PACKET_LENGTH) return 'unknown';
    const before = bytes[next - PACKET_LENGTH + 1] as number;
    if (!framed(bytes, next) || bytes[next + 1] !== ((before + 1) & 0xff)) return 'no';
  }
  return 'yes';
}

/**
 * The first header inside the packet at `i` that starts another framed packet followed by a
 * header (a rival reading of the same bytes), undefined when there is none, `unknown` when the
 * bytes to tell have not arrived.
 */
function rivalIn(bytes: Uint8Array, i: number): number | undefined | 'unknown' {
  for (let j = i + 1; j < i + PACKET_LENGTH; j++) {
    if (bytes[j] !== HEADER) continue;
    if (bytes.length >= j + PACKET_LENGTH && !framed(bytes, j)) continue;
    if (bytes.length <= j + PACKET_LENGTH) return 'unknown';
    if (framed(bytes, j) && bytes[j + PACKET_LENGTH] === HEADER) return j;
  }
  return undefined;
}
