/**
 * The Cyton's byte stream cut into what it carries: 33-byte data packets and `$$$`-terminated text
 * (the reset banner, answers to commands). Incremental: bytes arrive in chunks of any size, a packet
 * may be torn across chunks, and garbage may come between packets (a radio glitch, a packet torn
 * by a reset, text the board printed while streaming).
 *
 * Synchronisation, counted and never guessed:
 * - in sync (the last thing read was a packet), a packet is accepted when the next 33 bytes begin
 *   with 0xA0 and end with a footer 0xC0-0xC6;
 * - out of sync (at the start, or after anything that was not a packet), a candidate is accepted
 *   only when the byte after it is 0xA0 again (the next packet's header) or it is followed by
 *   nothing yet and the stream then goes quiet: a lone 0xA0 ... 0xCx inside garbage does not pass;
 * - every byte not part of a packet is counted (`skippedBytes`), each loss of sync once
 *   (`resyncs`), and kept as text until a `$$$` ends it (a message) or the text grows past 4 KiB.
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
  | { readonly kind: 'packet'; readonly packet: CytonPacket }
  | { readonly kind: 'message'; readonly text: string };

const MAX_TEXT = 4096;

export class PacketParser {
  private buffer = new Uint8Array(0);
  private inSync = false;
  private text = '';
  /** Bytes that were not part of a packet (text and garbage). */
  skippedBytes = 0;
  /** Times the stream fell out of sync after a packet. */
  resyncs = 0;
  /** Packets accepted. */
  packets = 0;

  /** Forgets a partial packet and text (after a reset, or a reopened port). */
  reset(): void {
    this.buffer = new Uint8Array(0);
    this.inSync = false;
    this.text = '';
  }

  /** Feeds bytes; answers the packets and messages they complete, in order. */
  push(chunk: Uint8Array): ParsedItem[] {
    const joined = new Uint8Array(this.buffer.length + chunk.length);
    joined.set(this.buffer, 0);
    joined.set(chunk, this.buffer.length);
    const out: ParsedItem[] = [];
    let i = 0;
    while (i < joined.length) {
      const candidate = this.candidateAt(joined, i);
      if (candidate === 'wait') break;
      if (candidate === 'packet') {
        this.flushText(out);
        out.push({ kind: 'packet', packet: decodePacket(joined, i) });
        this.packets++;
        this.inSync = true;
        i += PACKET_LENGTH;
        continue;
      }
      if (this.inSync) this.resyncs++;
      this.inSync = false;
      this.skip(joined[i] as number, out);
      i++;
    }
    this.buffer = joined.slice(i);
    return out;
  }

  /**
   * Treats the bytes held back waiting for the next header as what they look like (a packet when
   * header and footer fit): called when the stream goes quiet, as after the last packet before `s`.
   * With `keepPartial`, a header followed by fewer than 33 bytes at the end stays held: the rest of
   * that packet may be waiting to be read (a quiet timer that fired late on a loaded machine, before
   * the read that holds it); taking the half for garbage would lose a row.
   */
  flush(keepPartial = false): ParsedItem[] {
    const out: ParsedItem[] = [];
    let i = 0;
    const bytes = this.buffer;
    while (i < bytes.length) {
      if (keepPartial && bytes[i] === HEADER && bytes.length - i < PACKET_LENGTH) break;
      if (isPacketAt(bytes, i)) {
        out.push({ kind: 'packet', packet: decodePacket(bytes, i) });
        this.packets++;
        this.inSync = true;
        i += PACKET_LENGTH;
        continue;
      }
      this.inSync = false;
      this.skip(bytes[i] as number, out);
      i++;
    }
    this.buffer = bytes.slice(i);
    return out;
  }

  /** Bytes held back, waiting for the rest of a packet or the next header. */
  get pending(): number {
    return this.buffer.length;
  }

  private candidateAt(bytes: Uint8Array, i: number): 'packet' | 'skip' | 'wait' {
    if (bytes[i] !== HEADER) return 'skip';
    if (bytes.length - i < PACKET_LENGTH) return 'wait';
    if (!isPacketAt(bytes, i)) return 'skip';
    if (this.inSync) return 'packet';
    // Out of sync: the next packet's header must follow.
    if (bytes.length - i < PACKET_LENGTH + 1) return 'wait';
    return bytes[i + PACKET_LENGTH] === HEADER ? 'packet' : 'skip';
  }

  private skip(byte: number, out: ParsedItem[]): void {
    this.skippedBytes++;
    this.text += String.fromCharCode(byte);
    if (this.text.endsWith(END_OF_TEXT)) {
      out.push({ kind: 'message', text: this.text });
      this.text = '';
    } else if (this.text.length > MAX_TEXT) {
      this.text = this.text.slice(-MAX_TEXT / 2);
    }
  }

  /** Text before a packet that no `$$$` ended is garbage: dropped (it was counted). */
  private flushText(_out: ParsedItem[]): void {
    this.text = '';
  }
}

function isPacketAt(bytes: Uint8Array, i: number): boolean {
  if (bytes[i] !== HEADER || bytes.length - i < PACKET_LENGTH) return false;
  const footer = bytes[i + PACKET_LENGTH - 1] as number;
  return footer >= FOOTER_MIN && footer <= FOOTER_MAX;
}
