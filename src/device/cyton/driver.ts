/**
 * The OpenBCI Cyton (and Cyton + Daisy) as a live amplifier (../live/driver.ts), over an injected
 * serial link (./link.ts). The wire is ./protocol.ts and ./parser.ts; rows and lost packets are
 * ./sequencer.ts; time stamps ./sample-clock.ts; the channel map ./montage.ts; impedance
 * ./impedance.ts (measured here, ./lead-off.ts).
 *
 * Lifecycle: `open` stops any stream left running, resets the board (`v`), reads its banner up to
 * `$$$` (a Daisy doubles the channels and halves the rate), then sets every channel's settings so
 * that the driver knows them. `start` sends `b`, `stop` sends `s`.
 *
 * What can go wrong while streaming, and what the driver does:
 * - packets lost (radio): counted from the sample counter, the block after them carries `lost` and
 *   `discontinuity`, and a `samples_lost` link event says how many rows;
 * - the board resets itself (its banner arrives mid-stream, a brown-out or someone pressing reset):
 *   `lost`, then the settings are sent again, the stream restarted, `restored`, and the next block
 *   is a discontinuity;
 * - the port closes (dongle unplugged): `lost`; the driver tries to reopen the same path every
 *   `reopenIntervalMs` and, when the board answers again, restores the settings and the stream and
 *   says `restored`.
 */
import { HeadsetdError } from '../../errors/catalog.js';
import type { Electrode, ElectrodeMap } from '../../core/electrodes.js';
import { errorMessage } from '../../core/error-message.js';
import { ListenerSet, type Unsubscribe } from '../../core/listener-set.js';
import { DeviceArgumentError, DeviceUnavailableError } from '../errors.js';
import type {
  LiveChannel,
  LiveDriverInfo,
  LiveEegDriver,
  LiveLinkEvent,
  LiveSamples,
} from '../live/driver.js';
import { measureLeadOff } from './lead-off.js';
import type { SerialLink, SerialLinkOpener } from './link.js';
import { type CytonArgument, cytonChannels, parseCytonArgument } from './montage.js';
import { type ParsedItem, PacketParser } from './parser.js';
import {
  type ChannelSettings,
  channelSettingsCommand,
  type CytonBanner,
  type CytonGain,
  DEFAULT_CHANNEL_SETTINGS,
  GAINS,
  isBanner,
  isFailure,
  microvoltsPerCount,
  PACKET_RATE,
  parseBanner,
  rangeMicrovolts,
  RESET,
  START,
  STOP,
} from './protocol.js';
import { SampleClock, type SampleClockOptions } from './sample-clock.js';
import { type SequencedRow, Sequencer } from './sequencer.js';

export interface CytonDriverOptions {
  /** How long the board has to answer `v` with its banner, ms (default 4000). */
  readonly resetTimeoutMs?: number;
  /** How long a command's answer may take, ms (default 1500). */
  readonly answerTimeoutMs?: number;
  /** Between two attempts to reopen a lost port, ms (default 1000). */
  readonly reopenIntervalMs?: number;
  /** Lead-off measurement: rows discarded after switching the current on, and rows measured, in ms. */
  readonly impedanceSettleMs?: number;
  readonly impedanceWindowMs?: number;
  readonly clock?: SampleClockOptions;
  /** This machine's clock, ms since the epoch (tests). */
  readonly now?: () => number;
}

/** A row handed to whoever collects raw rows (the lead-off measurement) instead of the listeners. */
export type RowTap = (row: SequencedRow, microvolts: Float32Array) => void;

export class CytonDriver implements LiveEegDriver {
  readonly argument: CytonArgument;
  private link: SerialLink | undefined;
  private linkSubscriptions: Unsubscribe[] = [];
  private readonly parser = new PacketParser();
  private sequencer = new Sequencer(false);
  private clock = new SampleClock(PACKET_RATE);
  private banner: CytonBanner | undefined;
  private liveChannels: LiveChannel[] = [];
  /** The settings the board has, per channel, as the driver last set them. */
  private settings: ChannelSettings[] = [];
  private streaming = false;
  private closed = false;
  private linkUp = false;
  private nextDiscontinuity = false;
  private busy: Promise<unknown> = Promise.resolve();
  private reopenTimer: NodeJS.Timeout | undefined;
  private quietTimer: NodeJS.Timeout | undefined;
  private tap: RowTap | undefined;
  private readonly waiters = new Set<{
    accept: (text: string) => boolean;
    resolve: (text: string) => void;
  }>();
  private readonly samples = new ListenerSet<LiveSamples>();
  private readonly links = new ListenerSet<LiveLinkEvent>();
  private readonly now: () => number;

  constructor(
    argument: string | CytonArgument,
    private readonly openLink: SerialLinkOpener,
    private readonly options: CytonDriverOptions = {},
  ) {
    this.argument = typeof argument === 'string' ? parseCytonArgument(argument) : argument;
    this.now = options.now ?? Date.now;
  }

  async open(): Promise<void> {
    if (this.closed)
      throw new DeviceUnavailableError('closed', 'The Cyton driver was closed; create another.');
    await this.connect();
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

  /** What the parser and sequencer counted: bytes skipped, resynchronisations, rows lost. */
  stats(): { skippedBytes: number; resyncs: number; packets: number; lostRows: number } {
    const { skippedBytes, resyncs, packets } = this.parser;
    return { skippedBytes, resyncs, packets, lostRows: this.sequencer.lostRows };
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
    if (!GAINS.includes(gain as CytonGain)) {
      throw new DeviceArgumentError(`The Cyton has no gain ${gain}; use one of ${GAINS.join(', ')}.`, {
        field: 'gain',
        value: gain,
        allowed: [...GAINS],
      });
    }
    await this.serial(async () => {
      this.requireLink();
      const next = this.settings.map((s) => ({ ...s, gain: gain as CytonGain }));
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
    clearTimeout(this.quietTimer);
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
      throw new DeviceUnavailableError(
        'disconnected',
        `Cannot open the Cyton's serial port ${path}: ${errorMessage(error)}. Check that the dongle is plugged in, that the path is right and that this user may open it (on Linux, membership of the dialout group).`,
      );
    }
    this.attach(link);
    try {
      const banner = await this.reset();
      if (this.banner !== undefined && this.banner.daisy !== banner.daisy) {
        throw new DeviceUnavailableError(
          'disconnected',
          `The board on ${path} now ${banner.daisy ? 'has' : 'lacks'} a Daisy module; it cannot change its channels while headsetd runs. Restart headsetd.`,
        );
      }
      const count = banner.daisy ? 16 : 8;
      const channels = cytonChannels(count, this.argument.channels);
      const gain = this.settings[0]?.gain ?? this.argument.gain ?? DEFAULT_CHANNEL_SETTINGS.gain;
      const wanted =
        this.settings.length === count
          ? this.settings
          : channels.map(() => ({ ...DEFAULT_CHANNEL_SETTINGS, gain }));
      this.banner = banner;
      this.liveChannels = channels;
      this.sequencer = new Sequencer(banner.daisy);
      this.clock = new SampleClock(this.sampleRate(), this.options.clock);
      this.settings = channels.map(() => ({ ...DEFAULT_CHANNEL_SETTINGS }));
      for (let ch = 0; ch < count; ch++) await this.setChannel(ch, wanted[ch] as ChannelSettings);
    } catch (error) {
      await this.dropLink();
      throw error;
    }
  }

  private attach(link: SerialLink): void {
    this.link = link;
    this.linkUp = true;
    this.parser.reset();
    this.linkSubscriptions = [
      link.onData((chunk) => {
        this.receive(chunk);
      }),
      link.onClose((error) => {
        this.linkClosed(link, error);
      }),
    ];
  }

  private async dropLink(): Promise<void> {
    const link = this.link;
    for (const unsubscribe of this.linkSubscriptions) unsubscribe();
    this.linkSubscriptions = [];
    this.link = undefined;
    this.linkUp = false;
    if (link !== undefined) await link.close().catch(() => undefined);
  }

  private linkClosed(link: SerialLink, error: Error | undefined): void {
    if (link !== this.link || this.closed) return;
    void this.dropLink();
    const reason = error === undefined ? 'the port closed' : errorMessage(error);
    this.links.emit({
      kind: 'lost',
      message: `The Cyton's serial port ${this.argument.path} is gone (${reason}); headsetd tries to reopen it every ${this.reopenInterval() / 1000} s.`,
    });
    this.scheduleReopen();
  }

  private reopenInterval(): number {
    return this.options.reopenIntervalMs ?? 1000;
  }

  private scheduleReopen(): void {
    if (this.closed) return;
    clearTimeout(this.reopenTimer);
    this.reopenTimer = setTimeout(() => {
      void this.serial(async () => {
        if (this.closed || this.linkUp) return;
        try {
          await this.connect();
          if (this.streaming) await this.beginStream();
          this.nextDiscontinuity = true;
          this.links.emit({ kind: 'restored', message: `The Cyton on ${this.argument.path} answers again.` });
        } catch {
          this.scheduleReopen();
        }
      });
    }, this.reopenInterval());
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

  private async write(text: string): Promise<void> {
    const link = this.link;
    if (link === undefined)
      throw new DeviceUnavailableError('disconnected', `The Cyton's port ${this.argument.path} is not open.`);
    await link.write(text);
  }

  /** Sends `text` and waits for the answer `accept` recognises. */
  private async ask(
    text: string,
    accept: (answer: string) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<string> {
    let waiter: { accept: (t: string) => boolean; resolve: (t: string) => void } | undefined;
    let timer: NodeJS.Timeout | undefined;
    const answer = new Promise<string>((resolve, reject) => {
      waiter = { accept, resolve };
      this.waiters.add(waiter);
      timer = setTimeout(() => {
        reject(
          new DeviceUnavailableError(
            'disconnected',
            `The board on ${this.argument.path} did not answer ${what} within ${timeoutMs / 1000} s. Check that the Cyton is switched on (PC position), that the dongle's switch is on GPIO6 and that both use the same radio channel.`,
          ),
        );
      }, timeoutMs);
    });
    answer.catch(() => undefined);
    try {
      await this.write(text);
      return await answer;
    } finally {
      clearTimeout(timer);
      if (waiter !== undefined) this.waiters.delete(waiter);
    }
  }

  /** `s` then `v`: the board stops, resets to its defaults and prints its banner. */
  private async reset(): Promise<CytonBanner> {
    await this.write(STOP);
    const text = await this.ask(
      RESET,
      isBanner,
      this.options.resetTimeoutMs ?? 4000,
      'the reset command (v) with its banner ending in $$$',
    );
    return parseBanner(text);
  }

  /** Sets one channel; when the board is not streaming, waits for its answer. */
  private async setChannel(channel: number, settings: ChannelSettings): Promise<void> {
    const command = channelSettingsCommand(channel, settings);
    const answer = await this.ask(
      command,
      () => true,
      this.options.answerTimeoutMs ?? 1500,
      `the channel settings ${command}`,
    );
    if (isFailure(answer)) {
      throw new HeadsetdError(
        'device_unavailable',
        `The Cyton refused ${command}: ${answer.replace(/\$\$\$$/, '').trim()}`,
      );
    }
    this.settings[channel] = settings;
  }

  /** Sends `b` on a fresh sequence and time line. */
  private async beginStream(): Promise<void> {
    this.sequencer.restart();
    this.clock.reanchor();
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
        this.nextDiscontinuity = true;
      }
    }
  }

  /** What the lead-off measurement needs of the driver. */
  private leadOffPort() {
    return {
      channels: this.liveChannels,
      settings: this.settings,
      rate: this.sampleRate(),
      settleMs: this.options.impedanceSettleMs ?? 500,
      windowMs: this.options.impedanceWindowMs ?? 1000,
      answerTimeoutMs: this.options.answerTimeoutMs ?? 1500,
      setChannel: (channel: number, settings: ChannelSettings) => this.setChannel(channel, settings),
      command: (text: string) =>
        this.ask(text, () => true, this.options.answerTimeoutMs ?? 1500, `the lead-off command ${text}`),
      stream: async (on: boolean, tap?: RowTap) => {
        this.tap = tap;
        if (on) await this.beginStream();
        else await this.write(STOP);
      },
    };
  }

  // ---- bytes in ----

  private receive(chunk: Uint8Array): void {
    const at = this.now();
    this.handle(this.parser.push(chunk), at);
    // Bytes held back for a confirmation that may never come (the last packet before `s`, a short
    // answer after a torn packet): read them as they are once the line has been quiet a while.
    clearTimeout(this.quietTimer);
    if (this.parser.pending > 0) {
      this.quietTimer = setTimeout(() => {
        this.handle(this.parser.flush(), this.now());
      }, 50);
    }
  }

  private handle(items: ParsedItem[], at: number): void {
    let block: { rows: SequencedRow[] } = { rows: [] };
    const flush = (): void => {
      if (block.rows.length > 0) this.emitBlock(block.rows, at);
      block = { rows: [] };
    };
    for (const item of items) {
      if (item.kind === 'message') {
        flush();
        this.message(item.text);
        continue;
      }
      if (!this.streaming && this.tap === undefined) continue;
      for (const out of this.sequencer.push(item.packet, at)) {
        if (out.kind === 'restart') {
          flush();
          this.clock.reanchor();
          this.nextDiscontinuity = true;
          continue;
        }
        if (out.row.lostBefore > 0) flush();
        block.rows.push(out.row);
      }
    }
    flush();
  }

  private message(text: string): void {
    for (const waiter of this.waiters) {
      if (waiter.accept(text)) {
        this.waiters.delete(waiter);
        waiter.resolve(text);
        return;
      }
    }
    if (isBanner(text) && this.streaming) this.boardReset();
  }

  /** The board printed its banner mid-stream: it reset itself. Set it up again and restart. */
  private boardReset(): void {
    this.links.emit({
      kind: 'lost',
      message: `The Cyton on ${this.argument.path} reset itself mid-stream (its banner arrived); its settings are being restored and the stream restarted.`,
    });
    void this.serial(async () => {
      if (!this.streaming || !this.linkUp) return;
      try {
        for (let ch = 0; ch < this.settings.length; ch++)
          await this.setChannel(ch, this.settings[ch] as ChannelSettings);
        await this.beginStream();
        this.nextDiscontinuity = true;
        this.links.emit({
          kind: 'restored',
          message: `The Cyton on ${this.argument.path} streams again after its reset.`,
        });
      } catch (error) {
        this.links.emit({
          kind: 'lost',
          message: `The Cyton did not come back after its reset: ${errorMessage(error)}`,
        });
      }
    });
  }

  private emitBlock(rows: SequencedRow[], at: number): void {
    const first = rows[0] as SequencedRow;
    const last = rows[rows.length - 1] as SequencedRow;
    const width = this.liveChannels.length;
    const scale = this.settings.map((s) => microvoltsPerCount(s.gain));
    const data = new Float32Array(rows.length * width);
    rows.forEach((row, r) => {
      for (let c = 0; c < width; c++) data[r * width + c] = (row.counts[c] ?? 0) * (scale[c] as number);
    });
    if (this.tap !== undefined) {
      const tap = this.tap;
      rows.forEach((row, r) => {
        tap(row, data.subarray(r * width, (r + 1) * width));
      });
      return;
    }
    const timestamp = this.clock.place(first.index, last.index, at);
    const lost = first.lostBefore;
    const discontinuity = lost > 0 || this.nextDiscontinuity;
    this.nextDiscontinuity = false;
    if (lost > 0) {
      this.links.emit({
        kind: 'samples_lost',
        rows: lost,
        message: `${lost} sample${lost === 1 ? '' : 's'} from the Cyton never arrived (the sample counter skipped them); the data is not filled in.`,
      });
    }
    this.samples.emit({ data, rows: rows.length, timestamp, lost, discontinuity });
  }
}

/** The factory the composer calls: `cyton:<path>[?channels=...&gain=...]` over links `openLink` opens. */
export function createCytonDriver(
  argument: string,
  openLink: SerialLinkOpener,
  options?: CytonDriverOptions,
): CytonDriver {
  return new CytonDriver(argument, openLink, options);
}
