import { describe, expect, test } from 'vitest';
import { PacketParser } from './parser.js';
import {
  channelSettingsCommand,
  DEFAULT_CHANNEL_SETTINGS,
  encodePacket,
  gainCode,
  int24,
  leadOffCommand,
  microvoltsPerCount,
  parseBanner,
  parseChannelSettings,
  parseLeadOff,
  rangeMicrovolts,
  writeInt24,
} from './protocol.js';

const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};
const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);
const counts = (n: number): number[] =>
  Array.from({ length: 8 }, (_, c) => (n * 1000 + c) * (c % 2 ? -1 : 1));

describe('Cyton numbers', () => {
  test('24-bit big-endian two’s complement both ways, at the extremes', () => {
    const b = new Uint8Array(3);
    for (const v of [0, 1, -1, 0x7fffff, -0x800000, 123456, -654321]) {
      writeInt24(b, 0, v);
      expect(int24(b, 0)).toBe(v);
    }
    expect(int24(Uint8Array.of(0xff, 0xff, 0xff), 0)).toBe(-1);
    expect(int24(Uint8Array.of(0x80, 0x00, 0x00), 0)).toBe(-8388608);
  });

  test('µV per count is 4.5 V / gain / (2^23 − 1): 0.02235 µV at gain 24', () => {
    expect(microvoltsPerCount(24)).toBeCloseTo(0.0223517, 6);
    expect(microvoltsPerCount(1)).toBeCloseTo(4.5e6 / 8388607, 9);
  });

  test('the range covers every code −8388608 … 8388607 at every gain, as float32 samples carry them (was: −8388608 outside ±187 500 µV)', () => {
    for (const gain of [1, 2, 4, 6, 8, 12, 24]) {
      const scale = microvoltsPerCount(gain);
      const range = rangeMicrovolts(gain);
      for (const code of [-8388608, -8388607, 8388607, 0]) {
        const sample = Math.fround(code * scale);
        expect(Math.abs(sample), `code ${code} at gain ${gain}`).toBeLessThanOrEqual(range);
        expect(Math.abs(code * scale), `code ${code} at gain ${gain}`).toBeLessThanOrEqual(range);
      }
      // No wider than it must be: within one float32 step of the most negative code.
      expect(range).toBeLessThan(8388608 * scale * (1 + 2 ** -23));
    }
    expect(rangeMicrovolts(24)).toBeGreaterThan(187500.02);
  });

  test('gain codes 0-6 are 1, 2, 4, 6, 8, 12, 24; others have none', () => {
    expect([1, 2, 4, 6, 8, 12, 24].map(gainCode)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(gainCode(3)).toBeUndefined();
  });
});

describe('Cyton commands', () => {
  test('channel settings x<ch><power><gain><input><bias><srb2><srb1>X, Daisy letters for 9-16', () => {
    expect(channelSettingsCommand(0, DEFAULT_CHANNEL_SETTINGS)).toBe('x1060110X');
    expect(
      channelSettingsCommand(2, { ...DEFAULT_CHANNEL_SETTINGS, gain: 2, bias: false, srb2: false }),
    ).toBe('x3010000X');
    expect(channelSettingsCommand(8, DEFAULT_CHANNEL_SETTINGS)).toBe('xQ060110X');
    expect(channelSettingsCommand(15, { ...DEFAULT_CHANNEL_SETTINGS, powerDown: true })).toBe('xI160110X');
    expect(() => channelSettingsCommand(16, DEFAULT_CHANNEL_SETTINGS)).toThrow(/channel 17/);
    expect(parseChannelSettings('xQ020110X')).toEqual({
      channel: 8,
      settings: { ...DEFAULT_CHANNEL_SETTINGS, gain: 4 },
    });
    expect(parseChannelSettings('x9060110X')).toBeUndefined();
  });

  test('lead-off z<ch><p><n>Z', () => {
    expect(leadOffCommand(3, true, false)).toBe('z410Z');
    expect(leadOffCommand(9, false, true)).toBe('zW01Z');
    expect(parseLeadOff('zW01Z')).toEqual({ channel: 9, p: false, n: true });
  });

  test('the reset banner says whether a Daisy is attached and which firmware runs', () => {
    const cyton = parseBanner(
      'OpenBCI V3 8-16 channel\nOn Board ADS1299 Device ID: 0x3E\nLIS3DH Device ID: 0x33\nFirmware: v3.1.2\n$$$',
    );
    expect(cyton).toMatchObject({ model: 'OpenBCI V3 8-16 channel', firmware: 'v3.1.2', daisy: false });
    const daisy = parseBanner(
      'OpenBCI V3 8-16 channel\nOn Board ADS1299 Device ID: 0x3E\nOn Daisy ADS1299 Device ID: 0x3E\nLIS3DH Device ID: 0x33\nFirmware: v3.1.2\n$$$',
    );
    expect(daisy.daisy).toBe(true);
    expect(
      parseBanner('OpenBCI V3 16 channel\nADS1299 Device ID: 0x3E\nLIS3DH Device ID: 0x33\n$$$'),
    ).toMatchObject({
      firmware: 'unknown',
      daisy: false,
    });
  });
});

describe('PacketParser', () => {
  test('packets torn across chunks of every size come out whole and in order', () => {
    const stream = concat(...Array.from({ length: 20 }, (_, n) => encodePacket(n, counts(n))));
    for (const size of [1, 7, 33, 34, 100]) {
      const parser = new PacketParser();
      const got: number[] = [];
      for (let i = 0; i < stream.length; i += size) {
        for (const item of parser.push(stream.subarray(i, i + size))) {
          if (item.kind === 'packet') {
            got.push(item.packet.sampleNumber);
            expect([...item.packet.counts]).toEqual(counts(item.packet.sampleNumber));
          }
        }
      }
      for (const item of parser.flush()) if (item.kind === 'packet') got.push(item.packet.sampleNumber);
      expect(got).toEqual(Array.from({ length: 20 }, (_, n) => n));
      expect(parser.skippedBytes).toBe(0);
    }
  });

  test('garbage and a torn packet are skipped and counted, then the stream resynchronises', () => {
    const garbage = Uint8Array.of(0x00, 0xa0, 0x13, 0xc0, 0xa0, 0x55);
    const torn = encodePacket(3, counts(3)).subarray(0, 20);
    const stream = concat(
      encodePacket(0, counts(0)),
      encodePacket(1, counts(1)),
      encodePacket(2, counts(2)),
      torn,
      garbage,
      encodePacket(4, counts(4)),
      encodePacket(5, counts(5)),
      encodePacket(6, counts(6)),
    );
    const parser = new PacketParser();
    const got = [...parser.push(stream), ...parser.flush()].flatMap((i) =>
      i.kind === 'packet' ? [i.packet.sampleNumber] : [],
    );
    // From the start and after the garbage, a packet is trusted once the two after it follow in sequence.
    expect(got).toEqual([0, 1, 2, 4, 5, 6]);
    expect(parser.skippedBytes).toBe(torn.length + garbage.length);
    expect(parser.resyncs).toBe(1);
  });

  test('a header and footer 33 bytes apart inside garbage are not taken for a packet', () => {
    const fake = new Uint8Array(33);
    fake[0] = 0xa0;
    fake[32] = 0xc0;
    const parser = new PacketParser();
    const items = parser.push(
      concat(
        ascii('noise'),
        fake,
        ascii('more noise'),
        encodePacket(7, counts(7)),
        encodePacket(8, counts(8)),
        encodePacket(9, counts(9)),
      ),
    );
    // The last packet waits for the next header, or for the line to go quiet.
    expect(
      [...items, ...parser.flush()].flatMap((i) => (i.kind === 'packet' ? [i.packet.sampleNumber] : [])),
    ).toEqual([7, 8, 9]);
    expect(parser.skippedBytes).toBe(5 + 33 + 10);
  });

  test('quiet flushes that fire late (a loaded machine) while a packet is half read keep the half: no row lost; what comes next decides it', () => {
    // The session flushes after 50 ms of quiet; on a loaded machine its timer can run before the
    // read that holds the rest of the packet, which was already waiting.
    const parser = new PacketParser();
    const got: number[] = [];
    const take = (items: ReturnType<PacketParser['push']>): void => {
      for (const item of items) if (item.kind === 'packet') got.push(item.packet.sampleNumber);
    };
    take(
      parser.push(concat(encodePacket(0, counts(0)), encodePacket(1, counts(1)), encodePacket(2, counts(2)))),
    );
    take(parser.flush());
    const fourth = encodePacket(3, counts(3));
    take(parser.push(fourth.subarray(0, 10)));
    take(parser.flush());
    take(parser.flush());
    take(parser.push(concat(fourth.subarray(10), encodePacket(4, counts(4)))));
    take(parser.flush());
    expect(got).toEqual([0, 1, 2, 3, 4]);
    expect(parser.skippedBytes).toBe(0);
    // A half packet the line never completes is held however long the quiet; the text that comes
    // next (an answer to a command) shows it was torn: skipped, counted, and the answer read.
    parser.push(fourth.subarray(0, 10));
    expect(parser.flush()).toEqual([]);
    expect(parser.flush()).toEqual([]);
    expect(parser.pending).toBe(10);
    const answer = 'Success: Channel set for 1$$$';
    expect(parser.push(ascii(answer))).toEqual([{ kind: 'message', text: answer }]);
    expect(parser.pending).toBe(0);
    expect(parser.skippedBytes).toBe(10 + answer.length);
    expect(parser.tornPackets).toBe(1);
  });

  test('text up to $$$ is a message, also between packets (a reset mid-stream)', () => {
    const parser = new PacketParser();
    const banner = 'OpenBCI V3 8-16 channel\nFirmware: v3.1.2\n$$$';
    const stream = concat(
      encodePacket(0, counts(0)),
      encodePacket(1, counts(1)),
      encodePacket(2, counts(2)),
      ascii(banner),
      ascii('Success: Channel set for 1$$$'),
    );
    const items = parser.push(stream);
    // Packet 2 is followed by text, not by a header: it cannot be told from a torn packet and is
    // not taken (counted); its bytes do not leak into the banner.
    expect(items.map((i) => (i.kind === 'packet' ? i.packet.sampleNumber : i.text))).toEqual([
      0,
      1,
      banner,
      'Success: Channel set for 1$$$',
    ]);
    expect(parser.tornPackets).toBe(1);
  });
});
