/**
 * The packet parser against hostile bytes: torn packets whose remains line up with the next
 * packet's bytes, packets that carry header and footer bytes in their data, floods of random
 * garbage. The rule every case checks: a packet comes out only as the board sent it, whole (its
 * bytes equal one packet that was sent); never a row mixing two packets, never a row made of garbage.
 */
import { describe, expect, test } from 'vitest';
import { prng } from '../../../test/support/prng.js';
import { PacketParser, type ParsedItem } from './parser.js';
import { type CytonPacket, encodePacket, PACKET_LENGTH } from './protocol.js';

const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

/** Counts of packet `n`: channel 1 carries n itself, so that a packet out names the one sent. */
function countsOf(n: number, random: () => number): number[] {
  return Array.from({ length: 8 }, (_, c) => (c === 0 ? n : Math.floor(random() * 0x1000000) - 0x800000));
}

/**
 * Packet `n` whose bytes 12 and 13 are 0xC0 0xA0 (a footer then a header, inside the data): the
 * bytes that make the remains of a torn packet and the start of this one look like a whole packet.
 */
function hostilePacket(n: number, random: () => number): Uint8Array {
  const bytes = encodePacket(n & 0xff, countsOf(n, random));
  bytes[12] = 0xc0;
  bytes[13] = 0xa0;
  return bytes;
}

/** The board's answer to a command after `s`. */
const ANSWER = 'Success: Channel set for 1$$$';

/**
 * Feeds `stream` in chunks of random sizes, then an answer of the board (as after `s` and a
 * command): the bytes that decide whatever was held back for confirmation.
 */
function parseAll(stream: Uint8Array, random: () => number, parser = new PacketParser()): ParsedItem[] {
  const items: ParsedItem[] = [];
  for (let i = 0; i < stream.length; ) {
    const size = 1 + Math.floor(random() * 200);
    items.push(...parser.push(stream.subarray(i, i + size)));
    i += size;
  }
  items.push(...parser.flush(), ...parser.push(new TextEncoder().encode(ANSWER)));
  return items;
}

const packetsOf = (items: ParsedItem[]): CytonPacket[] =>
  items.flatMap((i) => (i.kind === 'packet' ? [i.packet] : []));

/** Every packet out is byte for byte one of `sent` (by its channel 1, the packet's number). */
function expectAllSent(out: CytonPacket[], sent: Map<number, Uint8Array>): number[] {
  return out.map((p) => {
    const n = p.counts[0] as number;
    const original = sent.get(n);
    expect(original, `packet ${n} was never sent`).toBeDefined();
    const bytes = encodePacket(p.sampleNumber, p.counts, p.footer);
    bytes.set(p.aux, 26);
    expect([...bytes], `packet ${n} is not the one sent`).toEqual([...(original as Uint8Array)]);
    return n;
  });
}

describe('PacketParser against hostile bytes', () => {
  test('a torn packet followed by one whose data holds C0 A0: never a row mixing the two, the real next packet kept (was: 20 of 20 spliced, the real one dropped)', () => {
    const random = prng(7);
    for (let trial = 0; trial < 20; trial++) {
      const sent = new Map<number, Uint8Array>();
      const parts: Uint8Array[] = [];
      const send = (n: number): void => {
        const bytes = hostilePacket(n, random);
        sent.set(n, bytes);
        parts.push(bytes);
      };
      for (let n = 0; n < 10; n++) send(n);
      // Packet 10 torn after 20 bytes: its remains + 13 bytes of packet 11 frame as a packet.
      parts.push(hostilePacket(10, random).subarray(0, 20));
      // The last two: when every packet holds a rival reading, the last ones of a stream have
      // no two packets after them to vouch for them (the stream's end, after `s`, loses them).
      for (let n = 11; n < 32; n++) send(n);
      const parser = new PacketParser();
      const items = parseAll(concat(...parts), random, parser);
      const all = expectAllSent(packetsOf(items), sent);
      const out = all.filter((n) => n < 30);
      // The board's answer after the stream comes through, whatever became of the packets before it.
      expect(items.at(-1)).toEqual({ kind: 'message', text: ANSWER });
      // The last two, each holding a rival reading, cannot be vouched for by two packets after
      // them (the answer follows): lost and counted, the first as a header skipped where a packet
      // was due.
      const end = [30, 31].filter((n) => !all.includes(n)).length;
      // Every packet from 11 on is kept; 8 and 9, whose own bytes hold a rival reading that the
      // torn bytes leave unresolved, may be lost with it (in doubt lost and counted, never spliced).
      const before = [8, 9].filter((n) => !out.includes(n)).length;
      expect(out).toEqual(
        [...Array.from({ length: 10 }, (_, n) => n), ...Array.from({ length: 19 }, (_, n) => n + 11)].filter(
          (n) => (n !== 8 && n !== 9) || out.includes(n),
        ),
      );
      expect(parser.tornPackets).toBe(1 + (all.includes(30) ? 0 : 1));
      expect(parser.skippedBytes).toBe(20 + 33 * before + 33 * end + ANSWER.length);
    }
  });

  test('a packet torn at any length, followed by real packets: the torn one skipped and counted, every real one after it kept', () => {
    const random = prng(11);
    for (let cut = 1; cut < PACKET_LENGTH; cut++) {
      const sent = new Map<number, Uint8Array>();
      const parts: Uint8Array[] = [];
      for (let n = 0; n < 40; n++) {
        const bytes = random() < 0.5 ? hostilePacket(n, random) : encodePacket(n & 0xff, countsOf(n, random));
        if (n === 20) {
          parts.push(bytes.subarray(0, cut));
          continue;
        }
        sent.set(n, bytes);
        parts.push(bytes);
      }
      const parser = new PacketParser();
      const all = expectAllSent(packetsOf(parseAll(concat(...parts), random, parser)), sent);
      const out = all.filter((n) => n < 38);
      // Every packet after the torn one is kept (but the last two, at the stream's end). The two
      // before it are too, unless their own bytes hold a rival reading (C0 A0 inside) that the
      // torn bytes leave unresolved: in doubt they are lost and counted, never spliced.
      const expected = [...sent.keys()].filter((n) => n < 38 && ((n !== 18 && n !== 19) || out.includes(n)));
      expect(out, `torn after ${cut} bytes`).toEqual(expected);
      // Packet 38, when a rival reading in it leaves it unvouched at the stream's end, is a second
      // header skipped where a packet was due.
      expect(parser.tornPackets, `torn after ${cut} bytes`).toBe(all.includes(38) ? 1 : 2);
    }
  });

  test('a flood of random garbage between packets, 1 MiB over many bursts: no packet that was not sent, the stream found again after each burst', () => {
    const random = prng(2026);
    const sent = new Map<number, Uint8Array>();
    const parts: Uint8Array[] = [];
    let garbage = 0;
    const bursts: number[] = [];
    for (let n = 0; n < 4000; n++) {
      if (n % 100 === 50) {
        const burst = new Uint8Array(2 + Math.floor(random() * 60_000));
        for (let b = 0; b < burst.length; b++) {
          // Garbage rich in headers and footers, the bytes a parser could be fooled by.
          const r = random();
          burst[b] = r < 0.1 ? 0xa0 : r < 0.2 ? 0xc0 + Math.floor(random() * 16) : Math.floor(random() * 256);
        }
        parts.push(burst);
        garbage += burst.length;
        bursts.push(n);
      }
      const bytes = random() < 0.3 ? hostilePacket(n, random) : encodePacket(n & 0xff, countsOf(n, random));
      sent.set(n, bytes);
      parts.push(bytes);
    }
    expect(garbage).toBeGreaterThan(1 << 20);
    const parser = new PacketParser();
    const out = expectAllSent(packetsOf(parseAll(concat(...parts), random, parser)), sent);
    // In order, each once; the packet before a burst is not followed by a header, and after a
    // burst the parser needs three packets in sequence to trust the stream again: at most those
    // two are lost for each burst.
    expect(out).toEqual([...out].sort((a, b) => a - b));
    expect(new Set(out).size).toBe(out.length);
    expect(out.length).toBeGreaterThanOrEqual(4000 - 2 * bursts.length);
    expect(parser.pending).toBeLessThan(4 * PACKET_LENGTH);
    expect(parser.textLength).toBeLessThanOrEqual(4096);
  });

  test('garbage alone, 4 MiB of it rich in headers and footers: not one packet', () => {
    const random = prng(99);
    const parser = new PacketParser();
    let items = 0;
    for (let chunk = 0; chunk < 64; chunk++) {
      const bytes = new Uint8Array(1 << 16);
      for (let b = 0; b < bytes.length; b++) {
        const r = random();
        bytes[b] = r < 0.15 ? 0xa0 : r < 0.3 ? 0xc0 + Math.floor(random() * 16) : Math.floor(random() * 256);
      }
      items += packetsOf(parser.push(bytes)).length;
    }
    items += packetsOf(parser.flush()).length;
    expect(items).toBe(0);
    // Every byte skipped but the last few, held until the bytes after them decide.
    expect(parser.skippedBytes + parser.pending).toBe(64 << 16);
    expect(parser.pending).toBeLessThan(4 * PACKET_LENGTH);
  });
});
