/**
 * The LSL device's driver (`--device lsl:<query>`): the headset's EEG read from a Lab Streaming
 * Layer stream of the lab (OpenBCI GUI, a BrainFlow program, muse-lsl, a commercial amplifier's
 * LSL app), through headsetd's own implementation of LSL's protocol (src/lsl/: the resolver, the
 * full info, the time-correction probes and the data feed that the `lsl-inlet` node reads with).
 *
 * - `open()` resolves the query (argument.ts) and waits up to `wait` seconds for a stream; when
 *   several answer, it takes the first by name, source id, host, creation time and uid, and says
 *   so in `info().source`. No stream: a `device_unavailable` error naming the query; the device
 *   does not wait on after `open()` fails. A stream that cannot be played (irregular rate, a string
 *   or 64-bit format, no labels and no map) is refused the same way, saying why.
 * - Channels and units: channels.ts. Blocks, their time (liblsl's clock sync and dejitter) and
 *   the rows lost: timeline.ts.
 * - When the outlet goes (its program stopped or was killed, the network cut), a `lost` link event;
 *   the driver looks for it again, every 2 s, by its source id, name and type (without a source
 *   id, by the query, name, type and host), and when it is back a `restored` event, and the next block is marked
 *   `discontinuity`. An outlet that comes back with other channels or another rate is not played
 *   (a `lost` event says why) until one with the channels the device opened with is there.
 */
import { ListenerSet, type Unsubscribe } from '../../core/listener-set.js';
import { READABLE_FORMATS, type ReadableFormat } from '../../lsl/info.js';
import { leftOutNote } from '../../lsl/close-sample.js';
import { type Feed, fetchFullInfo, measureTimeCorrection, openFeed } from '../../lsl/inlet.js';
import { LOOPBACK_NETWORK, type LslNetwork } from '../../lsl/network.js';
import { buildQuery, type ResolvedStream, resolveStreams, xpathLiteral } from '../../lsl/resolver.js';
import { DeviceUnavailableError } from '../errors.js';
import type {
  LiveChannel,
  LiveDriverInfo,
  LiveEegDriver,
  LiveLinkEvent,
  LiveSamples,
} from '../live/driver.js';
import { describeQuery, type LslArgument, parseLslArgument } from './argument.js';
import { describeUnplayed, type LslChannel, mapLslChannels } from './channels.js';
import { LslTimeline } from './timeline.js';

export interface LslDriverOptions {
  /** Where LSL looks for streams (the service's `lsl` settings); default: this machine only. */
  readonly network?: LslNetwork;
  /** Overrides the argument's `wait`, ms. */
  readonly openTimeoutMs?: number;
  /** Where the driver says what it does (the pick, a loss, a left-out close sample). */
  readonly log?: (message: string) => void;
}

/** What the driver knows beyond the contract, for a status page. */
export interface LslDriverStatus {
  /** The outlet has a queue for this driver's feed: every sample it pushes from now on comes. */
  readonly connected: boolean;
  /** The time correction in use (the outlet's clock onto this machine's LSL clock), ms. */
  readonly clockOffsetMs: number;
  /** Times the outlet went and came back. */
  readonly recoveries: number;
  /** Samples liblsl 1.16 sends as its outlet closes, left out (lsl/close-sample.ts). */
  readonly closeSamplesDropped: number;
}

/** `open()` found no stream, or one the device cannot play. */
export class LslUnavailableError extends DeviceUnavailableError {
  /** The query as the argument gave it (`type=EEG`). */
  readonly query: string;

  constructor(message: string, query: string) {
    super('disconnected', message);
    this.name = 'LslUnavailableError';
    this.query = query;
  }
}

/** How long `open()` listens for more answers after the first, ms (four query waves). */
const SETTLE_MS = 2000;
const RESOLVE_WAVE_MS = 2000;
/** The wait before looking again for an outlet whose feed ended before a sample came, ms. */
const RETRY_MS = 2000;
const FULL_INFO_MS = 5000;
const CORRECTION_INTERVAL_MS = 5000;
/** Rows held for a question of the timeline leave, answered "no loss", after this long without a sample, ms. */
const HELD_IDLE_MS = 1000;
/** The buffer the outlet keeps for this inlet, s. */
const MAX_BUFFERED_S = 60;

/** The deterministic order among streams that answer one query. */
function byIdentity(a: ResolvedStream, b: ResolvedStream): number {
  const keys = (s: ResolvedStream) => [s.name, s.sourceId, s.hostname, s.createdAt, s.uid] as const;
  const ka = keys(a);
  const kb = keys(b);
  for (let i = 0; i < ka.length; i++) {
    const x = ka[i] as string | number;
    const y = kb[i] as string | number;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

const describeStream = (s: ResolvedStream) =>
  `LSL stream '${s.name}' (type ${s.type || 'none'}${s.sourceId === '' ? ', no source id' : `, source id ${s.sourceId}`}) on host ${s.hostname || 'unknown'} (${s.v4address})`;

export class LslDriver implements LiveEegDriver {
  private readonly parsed: LslArgument;
  private readonly network: LslNetwork;
  private readonly query: string;
  private readonly samples = new ListenerSet<LiveSamples>();
  private readonly links = new ListenerSet<LiveLinkEvent>();
  private stream: ResolvedStream | undefined;
  private lslChannels: LslChannel[] = [];
  private others: ResolvedStream[] = [];
  private timeline: LslTimeline | undefined;
  private correction = 0;
  private running = false;
  private closed = false;
  private connected = false;
  private recoveries = 0;
  private closeSamplesDropped = 0;
  private rowsDelivered = 0;
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  private feed: Feed | undefined;
  private endRead: ((reason: string) => void) | undefined;
  private correctionTimer: NodeJS.Timeout | undefined;
  private heldTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly argument: string,
    private readonly options: LslDriverOptions = {},
  ) {
    this.parsed = parseLslArgument(argument);
    this.network = options.network ?? LOOPBACK_NETWORK;
    this.query = buildQuery(this.parsed.query, this.network.sessionId);
  }

  private log(message: string): void {
    this.options.log?.(message);
  }

  private unavailable(message: string): LslUnavailableError {
    return new LslUnavailableError(message, describeQuery(this.parsed.query));
  }

  async open(): Promise<void> {
    if (this.closed) throw new DeviceUnavailableError('closed', 'The LSL device is closed.');
    const waitMs = this.options.openTimeoutMs ?? this.parsed.waitMs;
    const words = describeQuery(this.parsed.query);
    let matches: ResolvedStream[];
    try {
      matches = await resolveStreams(this.query, this.network, { timeoutMs: waitMs, settleMs: SETTLE_MS });
    } catch (error) {
      throw this.unavailable(`Cannot look for LSL streams (${words}): ${(error as Error).message}.`);
    }
    if (matches.length === 0) {
      const where =
        this.network.interfaces.length === 0 && this.network.knownPeers.length === 0
          ? 'on this machine (LSL is on loopback: open lsl.interfaces or name lsl.knownPeers for an outlet on another machine)'
          : `on this machine and through ${[...this.network.interfaces, ...this.network.knownPeers].join(', ')}`;
      throw this.unavailable(
        `No LSL stream matches ${words} (LSL query ${this.query}) ${where} within ${waitMs / 1000} s: start the program that publishes it (OpenBCI GUI's LSL widget, a BrainFlow or pylsl outlet), check its name and type, or wait longer with ?wait=<seconds>.`,
      );
    }
    matches.sort(byIdentity);
    const chosen = matches[0] as ResolvedStream;
    let full: ResolvedStream;
    try {
      full = await fetchFullInfo(chosen, FULL_INFO_MS);
    } catch (error) {
      throw this.unavailable(
        `${describeStream(chosen)} answered but its description could not be read: ${(error as Error).message}.`,
      );
    }
    this.checkPlayable(full);
    this.lslChannels = mapLslChannels(full, this.parsed.channels, this.argument);
    this.stream = full;
    this.others = matches.slice(1);
    this.timeline = new LslTimeline(
      full.nominalSrate,
      this.lslChannels.map((channel) => channel.scale),
    );
    this.correction = (await measureTimeCorrection(full)) ?? 0;
    const unplayed = describeUnplayed(this.lslChannels);
    this.log(
      `playing ${this.info().source}${unplayed.length === 0 ? '' : `; channels not played: ${unplayed.join(', ')}`}`,
    );
  }

  /** Refuses a stream whose samples cannot be frames. */
  private checkPlayable(stream: ResolvedStream): void {
    if (!READABLE_FORMATS.includes(stream.channelFormat as ReadableFormat)) {
      throw this.unavailable(
        `${describeStream(stream)} sends ${stream.channelFormat} values; the LSL device reads ${READABLE_FORMATS.join(', ')}.`,
      );
    }
    if (!(stream.nominalSrate > 0)) {
      throw this.unavailable(
        `${describeStream(stream)} has an irregular rate (nominal_srate 0); the LSL device plays streams with a nominal rate only.`,
      );
    }
    if (stream.channelCount < 1) throw this.unavailable(`${describeStream(stream)} has no channel.`);
  }

  info(): LiveDriverInfo {
    const s = this.stream;
    if (s === undefined) {
      return {
        kind: 'lsl',
        model: 'LSL stream',
        hardware: 'unknown',
        firmware: 'unknown',
        serial: '',
        source: `LSL stream matching ${describeQuery(this.parsed.query)} (not found yet)`,
      };
    }
    const parts = [describeStream(s)];
    if (this.others.length > 0) {
      parts.push(
        `the first by name, source id, host and creation time of ${this.others.length + 1} streams matching ${describeQuery(this.parsed.query)} (also: ${this.others.map((o) => `'${o.name}' on ${o.hostname || o.v4address}`).join(', ')})`,
      );
    }
    return {
      kind: 'lsl',
      model: `LSL ${s.type || 'untyped'} stream '${s.name}'`,
      hardware: `${s.channelCount} ${s.channelFormat} channels at ${s.nominalSrate} Hz`,
      firmware: `LSL protocol ${(s.version / 100).toFixed(2)}`,
      serial: s.sourceId === '' ? s.uid : s.sourceId,
      source: parts.join('; '),
    };
  }

  channels(): readonly LiveChannel[] {
    return this.lslChannels;
  }

  sampleRate(): number {
    return this.stream?.nominalSrate ?? 0;
  }

  range(): number | undefined {
    return undefined;
  }

  status(): LslDriverStatus {
    return {
      connected: this.connected,
      clockOffsetMs: this.correction * 1000,
      recoveries: this.recoveries,
      closeSamplesDropped: this.closeSamplesDropped,
    };
  }

  async start(): Promise<void> {
    if (this.closed) throw new DeviceUnavailableError('closed', 'The LSL device is closed.');
    if (this.stream === undefined || this.timeline === undefined) {
      throw new DeviceUnavailableError('disconnected', 'The LSL device is not open: call open() first.');
    }
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    this.timeline.restart();
    this.loop = this.run(this.stream);
    await Promise.resolve();
  }

  /** Read through a method: `running` changes while the loop awaits. */
  private isRunning(): boolean {
    return this.running;
  }

  /** Reads the stream; when its feed ends, finds it again; until stopped. */
  private async run(first: ResolvedStream): Promise<void> {
    let current = first;
    while (this.isRunning()) {
      const before = this.rowsDelivered;
      const reason = await this.read(current);
      if (!this.isRunning()) return;
      // A feed that ended before its first sample (the outlet refused it, or went meanwhile) is
      // not tried again at once: the outlet may still answer queries.
      if (this.rowsDelivered === before) await this.pause(RETRY_MS);
      if (!this.isRunning()) return;
      this.connected = false;
      this.links.emit({
        kind: 'lost',
        message: `${describeStream(current)} lost (${reason}); looking for it again every ${RESOLVE_WAVE_MS / 1000} s`,
      });
      this.log(`${describeStream(current)} lost (${reason})`);
      const gone = current;
      const next = await this.findAgain(gone);
      if (next === undefined) return;
      current = next;
      // Another outlet may run on another machine: its clock's offset is measured before it is read.
      this.correction = (await measureTimeCorrection(current)) ?? this.correction;
      if (!this.isRunning()) return;
      this.recoveries++;
      if (current.uid === gone.uid) this.timeline?.resumed();
      else this.timeline?.newOutlet();
      this.stream = current;
      this.links.emit({
        kind: 'restored',
        message: `${describeStream(current)} is back${current.uid === gone.uid ? '' : ' (a new outlet of the same source)'}; the next frame is marked discontinuous`,
      });
    }
  }

  /**
   * The query that finds the stream's next outlet: its source id, name and type (one program may
   * publish several streams under one source id: OpenBCI GUI does), else the query, name, type
   * and host. Not its shape: an outlet back with other channels is found, and refused saying why.
   */
  private recoveryQuery(gone: ResolvedStream, refused: ReadonlySet<string>): string {
    const same = [
      ...(gone.sourceId === ''
        ? [this.query, `hostname=${xpathLiteral(gone.hostname)}`]
        : [`session_id=${xpathLiteral(this.network.sessionId)}`, `source_id=${xpathLiteral(gone.sourceId)}`]),
      `name=${xpathLiteral(gone.name)}`,
      `type=${xpathLiteral(gone.type)}`,
    ];
    for (const uid of refused) same.push(`not(uid=${xpathLiteral(uid)})`);
    return same.join(' and ');
  }

  /** Looks for the stream until an outlet with the same channels answers, or the driver stops. */
  private async findAgain(gone: ResolvedStream): Promise<ResolvedStream | undefined> {
    const refused = new Set<string>();
    while (this.isRunning()) {
      const query = this.recoveryQuery(gone, refused);
      const found = await resolveStreams(query, this.network, {
        timeoutMs: RESOLVE_WAVE_MS,
        settleMs: 0,
        signal: this.abort.signal,
      }).catch(() => [] as ResolvedStream[]);
      if (!this.isRunning()) return undefined;
      const candidate = found.sort(byIdentity)[0];
      if (candidate === undefined) continue;
      const full = await fetchFullInfo(candidate, FULL_INFO_MS).catch(() => undefined);
      if (full === undefined || !this.isRunning()) continue;
      const problem = this.shapeProblem(full, gone);
      if (problem !== undefined) {
        refused.add(full.uid);
        this.links.emit({
          kind: 'lost',
          message: `${describeStream(full)} is back but ${problem}: it is not played; restart headsetd to play it, or restart the outlet as it was`,
        });
        continue;
      }
      return full;
    }
    return undefined;
  }

  /** Why a returning outlet cannot continue the device's channels, or undefined when it can. */
  private shapeProblem(next: ResolvedStream, gone: ResolvedStream): string | undefined {
    if (next.nominalSrate !== gone.nominalSrate)
      return `its rate is ${next.nominalSrate} Hz, not ${gone.nominalSrate} Hz`;
    if (next.channelCount !== gone.channelCount)
      return `it has ${next.channelCount} channels, not ${gone.channelCount}`;
    if (!READABLE_FORMATS.includes(next.channelFormat as ReadableFormat))
      return `it sends ${next.channelFormat} values`;
    let channels: LslChannel[];
    try {
      channels = mapLslChannels(next, this.parsed.channels, this.argument);
    } catch (error) {
      return (error as Error).message;
    }
    if (channels.some((channel, c) => channel.name !== this.lslChannels[c]?.name)) {
      return `its channels (${channels.map((channel) => channel.label).join(', ')}) are not the ones played (${this.lslChannels.map((channel) => channel.label).join(', ')})`;
    }
    this.lslChannels = channels;
    this.timeline?.setScales(channels.map((channel) => channel.scale));
    return undefined;
  }

  /** Reads one outlet until its feed ends; resolves with the reason. */
  private async read(stream: ResolvedStream): Promise<string> {
    this.correctionTimer = setInterval(() => {
      void measureTimeCorrection(stream).then((correction) => {
        if (correction !== undefined) this.correction = correction;
      });
    }, CORRECTION_INTERVAL_MS);
    try {
      return await new Promise<string>((resolve) => {
        this.endRead = resolve;
        this.feed = openFeed(
          stream,
          Math.ceil(MAX_BUFFERED_S * stream.nominalSrate),
          (values, stamps) => {
            this.deliver(values, stamps);
          },
          resolve,
          (sample) => {
            this.closeSamplesDropped++;
            this.log(leftOutNote(sample, false));
          },
          () => {
            this.connected = true;
          },
        );
        if (!this.isRunning()) resolve('stopped');
      });
    } finally {
      this.endRead = undefined;
      clearInterval(this.correctionTimer);
      this.feed?.close();
      this.feed = undefined;
      // Rows held for a question the stamps had not answered are real: they leave now.
      this.emitBlocks(this.timeline?.drain() ?? []);
    }
  }

  /** Waits `ms`, or less when the driver stops. */
  private async pause(ms: number): Promise<void> {
    const signal = this.abort.signal;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done);
    });
  }

  private deliver(values: number[], stamps: number[]): void {
    if (!this.running || this.timeline === undefined) return;
    this.rowsDelivered += stamps.length;
    this.emitBlocks(this.timeline.blocks(values, stamps, this.correction));
    clearTimeout(this.heldTimer);
    if (this.timeline.heldRows() > 0) {
      // The stream may pause right after a jump: its rows do not wait for the answer forever.
      this.heldTimer = setTimeout(() => {
        if (this.running) this.emitBlocks(this.timeline?.drain() ?? []);
      }, HELD_IDLE_MS);
    }
  }

  /** Rows lost before a block travel in its `lost`: the live headset announces them, once. */
  private emitBlocks(blocks: readonly LiveSamples[]): void {
    for (const block of blocks) this.samples.emit(block);
  }

  async stop(): Promise<void> {
    // The last sample of the last batch is held back until the outlet shows it still runs: ask it
    // now, so that a stop delivers it rather than dropping a real sample.
    if (this.running) await this.feed?.settle();
    if (this.running) this.emitBlocks(this.timeline?.drain() ?? []);
    this.running = false;
    this.abort.abort();
    clearInterval(this.correctionTimer);
    clearTimeout(this.heldTimer);
    this.feed?.close();
    this.endRead?.('stopped');
    await this.loop;
    this.loop = undefined;
    this.connected = false;
  }

  onSamples(listener: (samples: LiveSamples) => void): Unsubscribe {
    return this.samples.add(listener);
  }

  onLink(listener: (event: LiveLinkEvent) => void): Unsubscribe {
    return this.links.add(listener);
  }

  async close(): Promise<void> {
    await this.stop();
    this.closed = true;
    this.samples.clear();
    this.links.clear();
  }
}

/** The driver for `--device lsl:<argument>`; refuses a malformed argument at once (`validation_failed`). */
export function createLslDriver(argument: string, options: LslDriverOptions = {}): LslDriver {
  return new LslDriver(argument, options);
}
