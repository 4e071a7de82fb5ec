/**
 * An OpenBCI Cyton (optionally with a Daisy) emulated for the tests: it speaks the board's serial
 * protocol on any byte link (an in-memory pair, or one end of a `socat` pseudo-terminal pair).
 *
 * - `v`: stops streaming, restores the default settings, prints the firmware 3 banner up to `$$$`
 *   (with the `On Daisy` line when it has a Daisy);
 * - `b` / `s`: streams 250 packets per second (by the wall clock) / stops; the sample number starts
 *   at 0 on each `b`;
 * - `d`, `x...X`, `z...Z`: answered with the firmware's texts when not streaming, silent while
 *   streaming, as the board does;
 * - the signal: `emulatorCounts(row, channel)` counts, known to the tests. Channel 1 carries the row
 *   number itself (so a test finds which row it holds, across lost packets), the others a
 *   pseudo-random value over the whole 24-bit range; a powered-down channel sends 0;
 * - lead-off (`z<ch>10Z`/`z<ch>01Z`): that channel carries instead the 31.25 Hz sine the 6 nA
 *   current develops through the impedance set with `setImpedance` plus the 2.2 kΩ resistor, at the
 *   channel's gain; with a Daisy, the mean of two 250 Hz samples as the board sends it;
 * - faults on demand: `drop(n)` packets, `garbage(bytes)` (`randomGarbage` for a flood), `tear()` a
 *   packet, `resetMidStream()`, `goSilent()` (switched off or out of range, the port left open),
 *   `rail(channel, counts)` (an input held at one code, as a loose electrode rails);
 * - hostile modes: `hostileData` (every packet holds a footer and a header in its data, so that a
 *   torn packet's remains and the next packet's start frame as a packet), `mute` (answers every
 *   command, never streams).
 */
import {
  CHANNEL_LETTERS,
  type ChannelSettings,
  DEFAULT_CHANNEL_SETTINGS,
  encodePacket,
  LEAD_OFF_HZ,
  microvoltsPerCount,
  PACKET_RATE,
  parseChannelSettings,
  parseLeadOff,
} from '../../src/device/cyton/protocol.js';
import { leadOffAmplitudeMicrovolts } from '../../src/device/cyton/impedance.js';

/** The bytes an emulator writes and reads: the half of a link it owns. */
export interface EmulatorPort {
  write(bytes: Uint8Array | string): unknown;
  onData(listener: (chunk: Uint8Array) => void): unknown;
}

/**
 * The counts the emulator sends for `row` (packet index, or Daisy row) and 0-based `channel`. With
 * `hostile`, the two low bytes of channel 4 (bytes 12 and 13 of the packet) are 0xC0 0xA0: a
 * footer then a header inside the data, what lines up the remains of a torn packet with the start
 * of the next one.
 */
export function emulatorCounts(row: number, channel: number, hostile = false): number {
  if (channel === 0) return row % 0x400000;
  const h = Math.imul(row + 1, 0x9e3779b1) ^ Math.imul(channel + 7, 0x85ebca6b);
  const value = (((h >>> 0) % 0x1000000) - 0x800000) | 0;
  return hostile && channel % 8 === 3 ? (value & ~0xffff) | 0xc0a0 : value;
}

/**
 * `bytes` of random garbage from `seed` (mulberry32), the same for the same seed: uniform, or with
 * `rich` three bytes in ten a header (0xA0) or a footer (0xC0-0xCF), the bytes a parser can be
 * fooled by.
 */
export function randomGarbage(bytes: number, seed: number, rich = false): Uint8Array {
  const out = new Uint8Array(bytes);
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  for (let i = 0; i < bytes; i++) {
    const r = next();
    const kind = rich ? (r >>> 8) % 20 : 19;
    out[i] = kind < 3 ? 0xa0 : kind < 6 ? 0xc0 + (r & 0x0f) : r & 0xff;
  }
  return out;
}

export interface CytonEmulatorOptions {
  readonly daisy?: boolean;
  readonly firmware?: string;
  /** Emulates the dongle alone, its board switched off: every command gets the dongle's failure text. */
  readonly boardOff?: boolean;
  /** Every packet carries 0xC0 0xA0 in its bytes 12-13 (see `emulatorCounts`). */
  readonly hostileData?: boolean;
  /** Answers every command but never sends a packet (`b` is heard, nothing streams). */
  readonly mute?: boolean;
}

export interface SilenceOptions {
  /** The board comes back on its own after this long, streaming on (the packets meanwhile lost). */
  readonly forMs?: number;
  /** Out of radio range: not even `v` is heard while silent (by default a `v` ends the silence). */
  readonly deaf?: boolean;
}

export class CytonEmulator {
  readonly daisy: boolean;
  /** Every command received, in order (`v`, `b`, `x1060110X`, ...). */
  readonly commands: string[] = [];
  settings: ChannelSettings[];
  leadOff: { p: boolean; n: boolean }[];
  private readonly impedance = new Map<number, number>();
  private pending = '';
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private packet = 0;
  private dropping = 0;
  private silence: { deaf: boolean; timer: NodeJS.Timeout | undefined } | undefined;
  /** Packets sent since the last `b`. */
  sent = 0;
  /** Answers commands but ignores `b` (the option's value at first; a test may change it). */
  mute: boolean;

  constructor(
    private readonly port: EmulatorPort,
    private readonly options: CytonEmulatorOptions = {},
  ) {
    this.daisy = options.daisy ?? false;
    this.mute = options.mute ?? false;
    this.settings = this.defaults();
    this.leadOff = this.settings.map(() => ({ p: false, n: false }));
    port.onData((chunk) => {
      this.receive(Buffer.from(chunk).toString('latin1'));
    });
  }

  get streaming(): boolean {
    return this.timer !== undefined;
  }

  /** The impedance (Ω) the lead-off current meets on 0-based `channel`. */
  setImpedance(channel: number, ohms: number): void {
    this.impedance.set(channel, ohms);
  }

  /** Channels held at one code (a railed input: a loose electrode), by 0-based channel. */
  readonly railed = new Map<number, number>();

  /** Holds 0-based `channel` at `counts` (undefined: its signal again). */
  rail(channel: number, counts: number | undefined): void {
    if (counts === undefined) this.railed.delete(channel);
    else this.railed.set(channel, counts);
  }

  /** The next `n` packets are not sent (their sample numbers are skipped). */
  drop(n: number): void {
    this.dropping += n;
  }

  garbage(bytes: Uint8Array): void {
    this.send(bytes);
  }

  /** Sends `bytes` of garbage and resolves once the link has taken them (the reader read them). */
  async flood(bytes: Uint8Array): Promise<void> {
    if (this.silence !== undefined) return;
    await this.port.write(bytes);
  }

  /** Packet numbers (since the last `b`) that `tear` cut short. */
  readonly torn: number[] = [];

  /** Sends the first `bytes` bytes of a packet that then never completes (its number is skipped). */
  tear(bytes = 20): void {
    this.torn.push(this.packet);
    this.send(this.packetBytes(this.packet).subarray(0, bytes));
    this.packet++;
  }

  /** The board resets itself while streaming: it stops, prints its banner, forgets its settings. */
  resetMidStream(): void {
    this.reset();
  }

  /**
   * The board goes silent: no packet, no answer, the port left open. A `v` (unless `deaf`) ends the
   * silence with a reset; `forMs` ends it on its own, the stream going on where the clock is.
   */
  goSilent(options: SilenceOptions = {}): void {
    this.wake();
    const timer =
      options.forMs === undefined
        ? undefined
        : setTimeout(() => {
            this.wake();
          }, options.forMs);
    this.silence = { deaf: options.deaf ?? false, timer };
  }

  get silent(): boolean {
    return this.silence !== undefined;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.wake();
  }

  private wake(): void {
    clearTimeout(this.silence?.timer);
    this.silence = undefined;
  }

  private defaults(): ChannelSettings[] {
    return Array.from({ length: this.daisy ? 16 : 8 }, () => ({ ...DEFAULT_CHANNEL_SETTINGS }));
  }

  /** Writes to the link; a link already gone (the pty pair killed) is not the emulator's error. */
  private send(bytes: Uint8Array | string): void {
    if (this.silence !== undefined) return;
    Promise.resolve(this.port.write(bytes)).catch(() => undefined);
  }

  private say(text: string): void {
    if (!this.streaming) this.send(text);
  }

  private receive(text: string): void {
    this.pending += text;
    while (this.pending.length > 0) {
      const c = this.pending[0] as string;
      const length = c === 'x' ? 9 : c === 'z' ? 5 : 1;
      if (this.pending.length < length) return;
      const command = this.pending.slice(0, length);
      this.pending = this.pending.slice(length);
      this.commands.push(command);
      if (this.silence !== undefined) {
        if (command !== 'v' || this.silence.deaf) continue;
        this.wake();
      }
      this.execute(command);
    }
  }

  private execute(command: string): void {
    if (this.options.boardOff === true) {
      this.send('Failure: Communications timeout - Device failed to poll Host$$$');
      return;
    }
    if (command === 'v') {
      this.reset();
      return;
    }
    if (command === 'b') {
      this.start();
      return;
    }
    if (command === 's') {
      this.stop();
      return;
    }
    if (command === 'd') {
      this.settings = this.defaults();
      this.say('updating channel settings to default$$$');
      return;
    }
    if (command[0] === 'x') {
      const parsed = parseChannelSettings(command);
      if (parsed === undefined || parsed.channel >= this.settings.length) {
        this.say('Failure: Err: too many chars$$$');
        return;
      }
      this.settings[parsed.channel] = parsed.settings;
      this.say(`Success: Channel set for ${CHANNEL_LETTERS[parsed.channel]}$$$`);
      return;
    }
    if (command[0] === 'z') {
      const parsed = parseLeadOff(command);
      if (parsed === undefined || parsed.channel >= this.settings.length) {
        this.say('Failure: 5th char not Z$$$');
        return;
      }
      this.leadOff[parsed.channel] = { p: parsed.p, n: parsed.n };
      this.say(`Success: Lead off set for ${CHANNEL_LETTERS[parsed.channel]}$$$`);
      return;
    }
  }

  private reset(): void {
    this.stop();
    this.settings = this.defaults();
    this.leadOff = this.settings.map(() => ({ p: false, n: false }));
    const daisy = this.daisy ? 'On Daisy ADS1299 Device ID: 0x3E\n' : '';
    this.send(
      `OpenBCI V3 8-16 channel\nOn Board ADS1299 Device ID: 0x3E\n${daisy}LIS3DH Device ID: 0x33\nFirmware: ${this.options.firmware ?? 'v3.1.2'}\n$$$`,
    );
  }

  private start(): void {
    if (this.streaming || this.mute) return;
    this.packet = 0;
    this.sent = 0;
    this.startedAt = performance.now();
    this.timer = setInterval(() => {
      this.tick();
    }, 8);
  }

  private tick(): void {
    const due = Math.floor(((performance.now() - this.startedAt) * PACKET_RATE) / 1000);
    const chunks: Uint8Array[] = [];
    while (this.packet < due) {
      if (this.dropping > 0) this.dropping--;
      else chunks.push(this.packetBytes(this.packet));
      this.packet++;
    }
    if (chunks.length > 0) this.send(Buffer.concat(chunks));
  }

  /** Packet `p` since the stream started (sample number p mod 256). */
  private packetBytes(p: number): Uint8Array {
    this.sent++;
    const counts = new Array<number>(8);
    // Daisy: odd packets carry row (p - 1) / 2 of channels 1-8, even ones row p / 2 - 1 of 9-16.
    const odd = (p & 1) === 1;
    const row = !this.daisy ? p : odd ? (p - 1) / 2 : p / 2 - 1;
    const base = this.daisy && !odd ? 8 : 0;
    for (let c = 0; c < 8; c++) {
      const channel = base + c;
      const lead = this.leadOff[channel];
      // A powered-down input converts nothing: the ADS1299 sends 0 for it.
      const railed = this.railed.get(channel);
      counts[c] =
        this.settings[channel]?.powerDown === true
          ? 0
          : railed !== undefined
            ? railed
            : lead?.p || lead?.n
              ? this.leadOffCounts(channel, p)
              : emulatorCounts(Math.max(0, row), channel, this.options.hostileData);
    }
    return encodePacket(p & 0xff, counts);
  }

  /** The lead-off sine on `channel` as packet `p` carries it (Daisy: the mean of the chip's last two samples). */
  private leadOffCounts(channel: number, p: number): number {
    const amplitude = leadOffAmplitudeMicrovolts(this.impedance.get(channel) ?? 10_000);
    const scale = microvoltsPerCount(this.settings[channel]?.gain ?? 24);
    const at = (k: number): number =>
      (amplitude * Math.sin((2 * Math.PI * LEAD_OFF_HZ * k) / PACKET_RATE + 0.4)) / scale;
    return this.daisy ? (at(p - 1) + at(p)) / 2 : at(p);
  }
}
