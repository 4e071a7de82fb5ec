/**
 * The OpenBCI Cyton's serial protocol, as OpenBCI documents it (the Cyton data format and Cyton SDK
 * pages) and as its firmware and BrainFlow implement it. Pure: no I/O, no timers.
 *
 * Facts relied on (in our words):
 * - The dongle is an FTDI serial port at 115200 baud, 8 data bits, no parity, one stop bit.
 * - Commands are single ASCII characters or short ASCII sequences; the board answers a command,
 *   when it answers at all and is not streaming, with text that ends in `$$$`.
 * - `v` soft-resets the board: it stops streaming, restores its defaults and prints a banner that
 *   ends in `$$$`; firmware 3 prints one `ADS1299 Device ID` line per ADS1299 chip found (an
 *   `On Daisy` line when a Daisy module is attached) and a `Firmware: vX.Y.Z` line.
 * - `b` starts streaming, `s` stops it (no answer to either); `d` restores every channel's default
 *   settings (power on, gain 24, normal input, in bias, SRB2 connected, SRB1 disconnected).
 * - `x<ch><power><gain><input><bias><srb2><srb1>X` sets one channel: ch is 1-8 for the board, and
 *   Q W E R T Y U I for the Daisy's channels 9-16; power 0 = on; the gain code 0-6 means 1, 2, 4,
 *   6, 8, 12, 24; input 0-7 (0 normal, 1 shorted, ... 5 test signal); bias, srb2, srb1 are 0/1.
 *   Several such commands may be sent back to back (firmware 2 and later).
 * - `z<ch><p><n>Z` switches the lead-off current on the channel's P and/or N input (1 = on). At
 *   reset the firmware sets the lead-off drive to 6 nA at 31.2 Hz (the ADS1299's fCLK / 2^16,
 *   2.048 MHz / 65536 = 31.25 Hz).
 * - A data packet is 33 bytes: 0xA0, the sample number (0-255, one more per packet, wrapping),
 *   8 channels of 24-bit big-endian two's-complement counts, 6 auxiliary bytes, and a footer
 *   0xC0-0xCF that says what the auxiliary bytes hold (0xC0 accelerometer; others raw or time
 *   stamps; the low nibble is the board's to define).
 * - Counts to volts: 4.5 V / gain / (2^23 - 1) per count (the ADS1299's reference over the
 *   positive full scale of a 24-bit two's-complement number). The codes run from -2^23 to
 *   2^23 - 1: the most negative reads one count beyond -4.5 V / gain (a railed input sends it).
 * - The board streams 250 packets per second. With a Daisy it still sends 250 packets per second,
 *   alternating: odd sample numbers carry the board's 8 channels, even ones the Daisy's 8, each the
 *   mean of the chip's last two 250 Hz samples; one odd packet and the even packet after it make
 *   one 16-channel sample, so the rate is 125 Hz.
 */

/** The dongle's serial rate. */
export const CYTON_BAUD_RATE = 115_200;
/** Packets per second (and samples per second without a Daisy). */
export const PACKET_RATE = 250;
export const PACKET_LENGTH = 33;
export const HEADER = 0xa0;
export const FOOTER_MIN = 0xc0;
export const FOOTER_MAX = 0xcf;
export const CHANNELS_PER_CHIP = 8;
/** The ADS1299's reference voltage (V). */
export const VREF_VOLTS = 4.5;
/** The largest positive count of a 24-bit two's-complement number. */
export const FULL_SCALE_COUNTS = 2 ** 23 - 1;
/** The lead-off drive the firmware sets at reset (A) and its frequency (Hz). */
export const LEAD_OFF_AMPS = 6e-9;
export const LEAD_OFF_HZ = 2_048_000 / 65_536;
/** The board's gains, by their code (0-6) in the channel settings command. */
export const GAINS = [1, 2, 4, 6, 8, 12, 24] as const;
export type CytonGain = (typeof GAINS)[number];
/** Channel letters of the settings commands, channel 1 first (Daisy: Q..I for 9-16). */
export const CHANNEL_LETTERS = '12345678QWERTYUI';

export const RESET = 'v';
export const START = 'b';
export const STOP = 's';
export const DEFAULTS = 'd';
/** The end of every answer the board prints. */
export const END_OF_TEXT = '$$$';

/** The signed value of the 24-bit big-endian two's-complement number at `offset`. */
export function int24(bytes: Uint8Array, offset: number): number {
  const value = ((bytes[offset] ?? 0) << 16) | ((bytes[offset + 1] ?? 0) << 8) | (bytes[offset + 2] ?? 0);
  return value & 0x800000 ? value - 0x1000000 : value;
}

/** Writes `value` (clamped to the 24-bit range) as 24-bit big-endian two's complement at `offset`. */
export function writeInt24(bytes: Uint8Array, offset: number, value: number): void {
  const clamped = Math.max(-0x800000, Math.min(0x7fffff, Math.round(value)));
  const raw = clamped < 0 ? clamped + 0x1000000 : clamped;
  bytes[offset] = (raw >> 16) & 0xff;
  bytes[offset + 1] = (raw >> 8) & 0xff;
  bytes[offset + 2] = raw & 0xff;
}

/** µV per count at `gain`: 4.5 V / gain / (2^23 - 1), in µV. */
export function microvoltsPerCount(gain: number): number {
  return (VREF_VOLTS / gain / FULL_SCALE_COUNTS) * 1e6;
}

/** The most negative count of a 24-bit two's-complement number: one more in magnitude than the largest. */
export const MOST_NEGATIVE_COUNTS = -(2 ** 23);

/**
 * The largest magnitude (µV) a channel can read at `gain`: the most negative code's, 2^23 counts
 * (187 500.022 µV at gain 24, one count beyond 4.5 V / gain), as the float32 sample carries it
 * (never less than the exact value), so that every code the board can send is inside the range.
 */
export function rangeMicrovolts(gain: number): number {
  const exact = -MOST_NEGATIVE_COUNTS * microvoltsPerCount(gain);
  return Math.max(exact, Math.abs(Math.fround(-exact)));
}

/** The code (0-6) of a gain, or undefined for a gain the board does not have. */
export function gainCode(gain: number): number | undefined {
  const code = GAINS.indexOf(gain as CytonGain);
  return code < 0 ? undefined : code;
}

/** One packet as it came off the wire. */
export interface CytonPacket {
  /** 0-255. */
  readonly sampleNumber: number;
  /** The 8 channels' counts. */
  readonly counts: Int32Array;
  readonly aux: Uint8Array;
  readonly footer: number;
}

/** Decodes the 33 bytes at `offset` (the caller checked the header and footer). */
export function decodePacket(bytes: Uint8Array, offset: number): CytonPacket {
  const counts = new Int32Array(CHANNELS_PER_CHIP);
  for (let c = 0; c < CHANNELS_PER_CHIP; c++) counts[c] = int24(bytes, offset + 2 + 3 * c);
  return {
    sampleNumber: bytes[offset + 1] ?? 0,
    counts,
    aux: bytes.slice(offset + 26, offset + 32),
    footer: bytes[offset + 32] ?? 0,
  };
}

/** Encodes a packet (the emulator's side, and the tests'). */
export function encodePacket(
  sampleNumber: number,
  counts: ArrayLike<number>,
  footer = FOOTER_MIN,
): Uint8Array {
  const bytes = new Uint8Array(PACKET_LENGTH);
  bytes[0] = HEADER;
  bytes[1] = sampleNumber & 0xff;
  for (let c = 0; c < CHANNELS_PER_CHIP; c++) writeInt24(bytes, 2 + 3 * c, counts[c] ?? 0);
  bytes[32] = footer;
  return bytes;
}

/** A channel's settings, as the `x...X` command carries them. */
export interface ChannelSettings {
  readonly powerDown: boolean;
  readonly gain: CytonGain;
  /** 0 normal, 1 shorted, 2 bias measure, 3 MVDD, 4 temperature, 5 test signal, 6 BIAS_DRP, 7 BIAS_DRN. */
  readonly input: number;
  readonly bias: boolean;
  readonly srb2: boolean;
  readonly srb1: boolean;
}

/** What `d` (and a reset) sets every channel to. */
export const DEFAULT_CHANNEL_SETTINGS: ChannelSettings = {
  powerDown: false,
  gain: 24,
  input: 0,
  bias: true,
  srb2: true,
  srb1: false,
};

/**
 * What a channel no electrode is played on gets: powered down, out of the bias drive and off SRB2,
 * as the OpenBCI GUI sets a channel it switches off (`x<ch>1<gain><input>000X`): an open input left
 * in the bias loop feeds its noise into the bias drive of every electrode, and one left on SRB2 adds
 * its own to the reference.
 */
export function unusedChannelSettings(gain: CytonGain): ChannelSettings {
  return { ...DEFAULT_CHANNEL_SETTINGS, gain, powerDown: true, bias: false, srb2: false };
}

function letter(channel: number): string {
  const l = CHANNEL_LETTERS[channel];
  if (l === undefined) throw new RangeError(`The Cyton has no channel ${channel + 1} (1-16).`);
  return l;
}

const bit = (b: boolean): string => (b ? '1' : '0');

/** `x<ch><power><gain><input><bias><srb2><srb1>X` for the channel at 0-based `channel`. */
export function channelSettingsCommand(channel: number, settings: ChannelSettings): string {
  const code = gainCode(settings.gain);
  if (code === undefined) throw new RangeError(`The Cyton has no gain ${settings.gain}.`);
  return `x${letter(channel)}${bit(settings.powerDown)}${code}${settings.input}${bit(settings.bias)}${bit(settings.srb2)}${bit(settings.srb1)}X`;
}

/** `z<ch><p><n>Z`: the lead-off current on the P and/or N input of the channel at 0-based `channel`. */
export function leadOffCommand(channel: number, p: boolean, n: boolean): string {
  return `z${letter(channel)}${bit(p)}${bit(n)}Z`;
}

/**
 * Parses a channel settings command (the emulator's side): the 0-based channel and its settings,
 * or undefined when `command` is not one.
 */
export function parseChannelSettings(
  command: string,
): { channel: number; settings: ChannelSettings } | undefined {
  const m = /^x([1-8QWERTYUI])([01])([0-6])([0-7])([01])([01])([01])X$/.exec(command);
  if (m === null) return undefined;
  return {
    channel: CHANNEL_LETTERS.indexOf(m[1] as string),
    settings: {
      powerDown: m[2] === '1',
      gain: GAINS[Number(m[3])] as CytonGain,
      input: Number(m[4]),
      bias: m[5] === '1',
      srb2: m[6] === '1',
      srb1: m[7] === '1',
    },
  };
}

/** Parses a lead-off command (the emulator's side). */
export function parseLeadOff(command: string): { channel: number; p: boolean; n: boolean } | undefined {
  const m = /^z([1-8QWERTYUI])([01])([01])Z$/.exec(command);
  if (m === null) return undefined;
  return { channel: CHANNEL_LETTERS.indexOf(m[1] as string), p: m[2] === '1', n: m[3] === '1' };
}

/** What the reset banner says about the board. */
export interface CytonBanner {
  /** The first line (`OpenBCI V3 8-16 channel`). */
  readonly model: string;
  /** `v3.1.2`, or `unknown` before firmware 2 (which did not print it). */
  readonly firmware: string;
  readonly daisy: boolean;
  readonly text: string;
}

/** True when a `$$$`-terminated text is the reset banner (it names the board). */
export function isBanner(text: string): boolean {
  return /OpenBCI/i.test(text);
}

/**
 * Reads the reset banner. A Daisy is attached when the banner lists two ADS1299 chips (firmware 3
 * prints `On Board ADS1299 Device ID` and, with a Daisy, `On Daisy ADS1299 Device ID`).
 */
export function parseBanner(text: string): CytonBanner {
  const lines = text
    .replace(/\$\$\$\s*$/, '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  const start = lines.findIndex((l) => /OpenBCI/i.test(l));
  const model = start < 0 ? 'OpenBCI Cyton' : (lines[start] as string);
  const firmware = /Firmware:\s*(v?[\w.]+)/i.exec(text)?.[1] ?? 'unknown';
  const chips = lines.filter((l) => /ADS1299 Device ID/i.test(l)).length;
  const daisy = chips >= 2 || lines.some((l) => /On Daisy ADS1299/i.test(l));
  return { model, firmware, daisy, text };
}

/** True when the board refused a command (`Failure: ...$$$`). */
export function isFailure(text: string): boolean {
  return /^\s*Failure/i.test(text);
}
