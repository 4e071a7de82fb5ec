/**
 * The OpenBCI Cyton (and Cyton + Daisy) as a live amplifier (../live/driver.ts) over an injected
 * serial link (./link.ts, ./session.ts); packets to blocks in ./blocks.ts, impedance ./lead-off.ts.
 *
 * Lifecycle: `open` stops any stream left running, resets the board (`v`), reads its banner up to
 * `$$$` (a Daisy doubles the channels and halves the rate), then sets every channel's settings so
 * that the driver knows them (a channel played as no electrode powered down, out of BIAS and SRB2). `start` sends `b`, `stop` sends `s`.
 *
 * While streaming: packets lost (radio) are counted from the sample counter, the block after them
 * carries `lost` and `discontinuity` (the live headset announces the count). The board resetting
 * itself (its banner mid-stream): `lost`, settings sent again, stream restarted, `restored`, a
 * discontinuity. The port closing (dongle unplugged), or no packet for `stallTimeoutMs` while
 * streaming (./stall-watchdog.ts: the board off or out of range, the port still open): `lost`, the
 * port closed and reopened every `reopenIntervalMs`; when the board answers its reset, settings and
 * stream restored, `restored`, a discontinuity.
 */
import type { Electrode, ElectrodeMap } from '../../core/electrodes.js';
import { ListenerSet, type Unsubscribe } from '../../core/listener-set.js';
import { DeviceUnavailableError } from '../errors.js';
import { oneOfOrThrow } from '../arguments.js';
import type {
  LiveChannel,
  LiveDriverInfo,
  LiveEegDriver,
  LiveLinkEvent,
  LiveSamples,
} from '../live/driver.js';
import { BoardChangedError, checkSameBoard, resetBoard, sendChannelSettings } from './commands.js';
import { measureLeadOff } from './lead-off.js';
import { portNotOpened, type SerialLink, type SerialLinkOpener } from './link.js';
import { type CytonArgument, cytonChannels, parseCytonArgument } from './montage.js';
import { type ParsedItem, PacketParser } from './parser.js';
import { LinkReports } from './link-reports.js';
import { CytonSession } from './session.js';
import {
  type ChannelSettings,
  type CytonBanner,
  type CytonGain,
  DEFAULT_CHANNEL_SETTINGS,
  GAINS,
  isBanner,
  microvoltsPerCount,
  PACKET_RATE,
  rangeMicrovolts,
  START,
  STOP,
  unusedChannelSettings,
} from './protocol.js';
import type { CytonDriverOptions } from './options.js';
import { BlockMaker, type RowTap } from './blocks.js';
import { DEFAULT_STALL_TIMEOUT_MS, StallWatchdog } from './stall-watchdog.js';

export type { CytonDriverOptions } from './options.js';

export class CytonDriver implements LiveEegDriver {
  readonly argument: CytonArgument;
  private session: CytonSession | undefined;
  private readonly parser = new PacketParser();
  private blocks: BlockMaker;
  private banner: CytonBanner | undefined;
  private liveChannels: LiveChannel[] = [];
  /** The settings the board has, per channel, as the driver last set them. */
  private settings: ChannelSettings[] = [];
  private streaming = false;
  private closed = false;
  private busy: Promise<unknown> = Promise.resolve();
  private reopenTimer: NodeJS.Timeout | undefined;
  /** A reset or reconnection is under way: packets wait for it, the watchdog does not judge. */
  private recovering = false;
  private readonly reports = new LinkReports((event) => {
    this.links.emit(event);
  });
  private readonly watchdog: StallWatchdog;
  private readonly samples = new ListenerSet<LiveSamples>();
  private readonly links = new ListenerSet<LiveLinkEvent>();
  private readonly now: () => number;
  private readonly answerTimeoutMs: number;
  private readonly reopenIntervalMs: number;

  constructor(
    argument: string | CytonArgument,
    private readonly openLink: SerialLinkOpener,
    private readonly options: CytonDriverOptions = {},
  ) {
    this.argument = typeof argument === 'string' ? parseCytonArgument(argument) : argument;
    this.now = options.now ?? Date.now;
    this.answerTimeoutMs = options.answerTimeoutMs ?? 1500;
    this.reopenIntervalMs = options.reopenIntervalMs ?? 1000;
    this.blocks = this.makeBlocks(false);
    this.watchdog = new StallWatchdog(
      options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS,
      () => this.streaming && this.linkUp && !this.recovering,
      (silentMs) => {
        this.stalled(silentMs);
      },
    );
  }

  async open(): Promise<void> {
    if (this.closed)
      throw new DeviceUnavailableError('closed', 'The Cyton driver was closed; create another.');
    if (this.session !== undefined) return;
    await this.connect();
    this.watchdog.start();
  }

  info(): LiveDriverInfo {
    const b = this.banner;
    return {
      kind: 'cyton',
      model: b === undefined ? 'OpenBCI Cyton' : b.daisy ? 'OpenBCI Cyton + Daisy' : 'OpenBCI Cyton',
      hardware: b?.model ?? 'unknown',
      firmware: b?.firmware ?? 'unknown',
      serial: 'unknown',
      source: this.argument.path,
    };
  }

  channels(): readonly LiveChannel[] {
    return this.liveChannels;
  }

  sampleRate(): number {
    return this.banner?.daisy ? PACKET_RATE / 2 : PACKET_RATE;
  }

  range(): number | undefined {
    if (this.settings.length === 0) return undefined;
    return Math.max(...this.settings.map((s) => rangeMicrovolts(s.gain)));
  }

  /** The gain every channel is at (the lowest when they differ). */
  gain(): CytonGain {
    return Math.min(...this.settings.map((s) => s.gain)) as CytonGain;
  }

  /** What the parser and sequencer counted: bytes skipped, resynchronisations, torn packets, rows lost. */
  stats(): { skippedBytes: number; resyncs: number; tornPackets: number; packets: number; lostRows: number } {
    const { skippedBytes, resyncs, tornPackets, packets } = this.parser;
    return { skippedBytes, resyncs, tornPackets, packets, lostRows: this.blocks.lostRows };
  }

  /** What the parser counted on the wire, for GET /system/status (rows lost are the live headset's). */
  counters(): Readonly<Record<string, number>> {
    const { tornPackets, skippedBytes, resyncs } = this.parser;
    return { tornPackets, skippedBytes, resyncs };
  }

  async start(): Promise<void> {
    await this.serial(async () => {
      this.requireLink();
      if (this.streaming) return;
      await this.beginStream();
      this.streaming = true;
    });
  }

  async stop(): Promise<void> {
    await this.serial(async () => {
      if (!this.streaming) return;
      // Rows held after a gap being judged are real: they leave before the stream ends.
      this.blocks.drain();
      this.streaming = false;
      if (this.linkUp) await this.write(STOP);
    });
  }

  onSamples(listener: (samples: LiveSamples) => void): Unsubscribe {
    return this.samples.add(listener);
  }

  onLink(listener: (event: LiveLinkEvent) => void): Unsubscribe {
    return this.links.add(listener);
  }

  async setGain(gain: number): Promise<void> {
    const valid = oneOfOrThrow(gain, GAINS, 'gain');
    await this.serial(async () => {
      this.requireLink();
      const next = this.settings.map((s) => ({ ...s, gain: valid }));
      // The board answers settings only when it is not streaming, and a packet measured at the old
      // gain must not be scaled with the new one: stop, set, start again (a discontinuity).
      await this.pauseStream(async () => {
        for (let ch = 0; ch < next.length; ch++) await this.setChannel(ch, next[ch] as ChannelSettings);
      });
    });
  }

  async measureImpedance(
    electrodes: readonly Electrode[],
    signal?: AbortSignal,
  ): Promise<ElectrodeMap<number>> {
    return this.serial(async () => {
      this.requireLink();
      let result: ElectrodeMap<number> = {};
      await this.pauseStream(async () => {
        result = await measureLeadOff(this.leadOffPort(), electrodes, signal);
      });
      return result;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reopenTimer);
    this.watchdog.stop();
    try {
      if (this.streaming && this.linkUp) await this.write(STOP).catch(() => undefined);
    } finally {
      this.streaming = false;
      await this.dropLink();
    }
  }

  // ---- the link ----

  /** Opens the port, resets the board, learns it, sets the channels. */
  private async connect(): Promise<void> {
    const path = this.argument.path;
    let link: SerialLink;
    try {
      link = await this.openLink(path);
    } catch (error) {
      throw portNotOpened(path, error);
    }
    this.attach(link);
    try {
      const banner = await resetBoard(this.live(), path, this.options.resetTimeoutMs ?? 4000);
      if (this.banner !== undefined) checkSameBoard(this.banner, banner, path);
      const count = banner.daisy ? 16 : 8;
      const channels = cytonChannels(count, this.argument.channels);
      const gain = this.settings[0]?.gain ?? this.argument.gain ?? DEFAULT_CHANNEL_SETTINGS.gain;
      // A channel not played (`-`, or past the end of the list) is switched off.
      const wanted =
        this.settings.length === count
          ? this.settings
          : channels.map((c) =>
              c.name === undefined ? unusedChannelSettings(gain) : { ...DEFAULT_CHANNEL_SETTINGS, gain },
            );
      this.banner = banner;
      this.liveChannels = channels;
      this.blocks = this.makeBlocks(banner.daisy);
      this.settings = channels.map(() => ({ ...DEFAULT_CHANNEL_SETTINGS }));
      for (let ch = 0; ch < count; ch++) await this.setChannel(ch, wanted[ch] as ChannelSettings);
    } catch (error) {
      await this.dropLink();
      throw error;
    }
  }

  private attach(link: SerialLink): void {
    const session: CytonSession = new CytonSession(
      link,
      this.argument.path,
      this.parser,
      {
        items: (items) => {
          this.handle(items);
        },
        closed: (reason) => {
          this.linkClosed(session, reason);
        },
      },
      this.now,
    );
    this.session = session;
  }

  private get linkUp(): boolean {
    return this.session?.open ?? false;
  }

  private async dropLink(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    await session?.close();
  }

  private linkClosed(session: CytonSession, reason: string): void {
    if (session !== this.session || this.closed) return;
    this.session = undefined;
    this.reports.lost(
      `The Cyton's serial port ${this.argument.path} is gone (${reason}); headsetd tries to reopen it every ${this.reopenIntervalMs / 1000} s.`,
    );
    this.scheduleReopen();
  }

  /** No packet for `silentMs` while streaming: the board is declared lost and reset until it answers. */
  private stalled(silentMs: number): void {
    if (this.closed) return;
    const seconds = Math.round(silentMs / 100) / 10;
    const every = this.reopenIntervalMs / 1000;
    if (!this.reports.isLost) {
      this.reports.lost(
        `No sample from the Cyton on ${this.argument.path} for ${seconds} s: is the board on and in range? headsetd resets it every ${every} s until it sends samples.`,
      );
    } else if (this.reports.awaitingSamples) {
      // Lost, then it answered its reset and the start command, and still sends nothing.
      this.reports.lost(
        `The Cyton on ${this.argument.path} answers its reset but sends no sample after the start command (b): is its radio link good, its battery charged? headsetd resets it every ${every} s until it sends samples.`,
      );
    }
    this.retryLater();
  }

  /** Closes the port (a close that was never reported included) and reconnects every interval. */
  private retryLater(): void {
    this.recovering = true;
    void this.dropLink();
    this.scheduleReopen();
  }

  private isClosed(): boolean {
    return this.closed;
  }

  private scheduleReopen(): void {
    if (this.closed) return;
    clearTimeout(this.reopenTimer);
    this.recovering = true;
    this.reopenTimer = setTimeout(() => {
      void this.serial(async () => {
        if (this.closed || this.linkUp) return;
        try {
          await this.connect();
          // close() may have run while the board was answering.
          if (this.isClosed()) {
            await this.dropLink();
            return;
          }
          if (this.streaming) await this.beginStream();
          this.recovering = false;
          this.blocks.markDiscontinuity();
          this.reports.restored(
            this.streaming
              ? `The Cyton on ${this.argument.path} answers again and sends samples.`
              : `The Cyton on ${this.argument.path} answers again.`,
            this.streaming,
          );
        } catch (error) {
          // A board that answers as another board (a Daisy added or removed) is named as such.
          if (error instanceof BoardChangedError) this.reports.lost(error.message);
          this.scheduleReopen();
        }
      });
    }, this.reopenIntervalMs);
  }

  // ---- commands ----

  /** Runs `task` after the driver's earlier tasks (commands must not interleave on the wire). */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.busy.then(task, task);
    this.busy = run.catch(() => undefined);
    return run;
  }

  private requireLink(): void {
    if (this.closed) throw new DeviceUnavailableError('closed', 'The Cyton driver is closed.');
    if (!this.linkUp) {
      throw new DeviceUnavailableError(
        'disconnected',
        `The Cyton on ${this.argument.path} is not connected (the port is gone); headsetd is trying to reopen it.`,
      );
    }
  }

  private live(): CytonSession {
    if (this.session === undefined) {
      throw new DeviceUnavailableError('disconnected', `The Cyton's port ${this.argument.path} is not open.`);
    }
    return this.session;
  }

  private write(text: string): Promise<void> {
    return this.live().write(text);
  }

  private async setChannel(channel: number, settings: ChannelSettings): Promise<void> {
    await sendChannelSettings(this.live(), channel, settings, this.answerTimeoutMs);
    this.settings[channel] = settings;
  }

  /** Sends `b` on a fresh sequence and time line. */
  private async beginStream(): Promise<void> {
    // A packet held back from before (awaiting confirmation when the stream stopped) belongs to no
    // stream: the new one starts from its own packets.
    this.parser.reset();
    this.blocks.restart();
    this.watchdog.heard();
    await this.write(START);
  }

  /** Stops the stream (when running) around `task`, then starts it again with a discontinuity. */
  private async pauseStream(task: () => Promise<void>): Promise<void> {
    const was = this.streaming;
    if (was) {
      this.streaming = false;
      await this.write(STOP);
    }
    try {
      await task();
    } finally {
      if (was && this.linkUp) {
        await this.beginStream();
        this.streaming = true;
        this.blocks.markDiscontinuity();
      }
    }
  }

  /** How long a command waits for the board's answer, ms (1.5 s unless the options say). */
  /** What the lead-off measurement needs of the driver. */
  private leadOffPort() {
    return {
      channels: this.liveChannels,
      settings: this.settings,
      rate: this.sampleRate(),
      settleMs: this.options.impedanceSettleMs ?? 500,
      windowMs: this.options.impedanceWindowMs ?? 1000,
      answerTimeoutMs: this.answerTimeoutMs,
      setChannel: (channel: number, settings: ChannelSettings) => this.setChannel(channel, settings),
      remember: (channel: number, settings: ChannelSettings) => {
        this.settings[channel] = settings;
      },
      command: (text: string) =>
        this.live().ask(text, () => true, this.answerTimeoutMs, `the lead-off command ${text}`),
      stream: async (on: boolean, tap?: RowTap) => {
        this.blocks.tap = tap;
        if (on) await this.beginStream();
        else await this.write(STOP);
      },
    };
  }

  // ---- bytes in ----

  private makeBlocks(daisy: boolean): BlockMaker {
    return new BlockMaker(
      daisy,
      daisy ? PACKET_RATE / 2 : PACKET_RATE,
      this.options.clock,
      () => this.settings.map((s) => microvoltsPerCount(s.gain)),
      // Rows the counter skipped travel in `samples.lost`: the live headset announces them, once.
      (samples) => {
        this.samples.emit(samples);
      },
    );
  }

  private handle(items: readonly ParsedItem[]): void {
    const blocks = this.blocks;
    let after = items.filter((item) => item.kind === 'packet').length;
    if (after > 0) this.watchdog.heard();
    // Packets left over from before a reset or reconnection belong to no stream.
    const taking = (this.streaming && !this.recovering) || blocks.tap !== undefined;
    if (after > 0 && taking) this.reports.samplesArrived();
    for (const item of items) {
      if (item.kind === 'message') {
        blocks.flush();
        // A text nobody asked for: the banner means the board reset itself.
        if (isBanner(item.text) && this.streaming) this.boardReset();
      } else {
        after--;
        if (taking) blocks.push(item.packet, item.at, after);
      }
    }
    blocks.flush();
  }

  /** The board printed its banner mid-stream: it reset itself. Set it up again and restart. */
  private boardReset(): void {
    this.reports.lost(
      `The Cyton on ${this.argument.path} reset itself mid-stream (its banner arrived); its settings are being restored and the stream restarted.`,
    );
    this.recovering = true;
    void this.serial(async () => {
      if (!this.streaming || !this.linkUp || this.closed) {
        if (this.linkUp) this.recovering = false;
        return;
      }
      try {
        for (let ch = 0; ch < this.settings.length; ch++)
          await this.setChannel(ch, this.settings[ch] as ChannelSettings);
        await this.beginStream();
        this.recovering = false;
        this.blocks.markDiscontinuity();
        this.reports.restored(`The Cyton on ${this.argument.path} streams again after its reset.`, true);
      } catch {
        // Still `lost`: reconnect and reset it every interval until it answers.
        this.retryLater();
      }
    });
  }
}
