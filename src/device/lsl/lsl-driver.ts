/**
 * The LSL device's driver (`--device lsl:<query>`): the headset's EEG read from a Lab Streaming
 * Layer stream of the lab (OpenBCI GUI, a BrainFlow program, muse-lsl, a commercial amplifier's
 * LSL app), through the one LSL reader (lsl/reader.ts), which the `lsl-inlet` node reads with too:
 * resolving, the time correction and timeline, recovery and the channels' units are the reader's.
 * What is the device's own:
 *
 * - `open()` waits up to `wait` seconds for a stream; when several answer, the reader takes the
 *   first by name, source id, host, creation time and uid, and `info().source` says so. No stream:
 *   a `device_unavailable` error naming the query; the device does not wait on after `open()`
 *   fails. A stream that cannot be played (irregular rate, a string or 64-bit format, no labels
 *   and no map) is refused the same way, saying why.
 * - Channel names (channels.ts): the reader's labels cleaned, or the argument's `channels=`.
 * - Link events: when the outlet goes, `lost`; when it is back, `restored` (the next block is
 *   marked `discontinuity`). An outlet that comes back with other channels or another rate is not
 *   played (a `lost` event says why) until one with the channels the device opened with is there.
 */
import { ListenerSet, type Unsubscribe } from '../../core/listener-set.js';
import { leftOutNote } from '../../lsl/close-sample.js';
import type { LslColumn } from '../../lsl/columns.js';
import { LOOPBACK_NETWORK, type LslNetwork } from '../../lsl/network.js';
import { describeStream, LOOK_AGAIN_MS, LslOpenError, LslReader } from '../../lsl/reader.js';
import { buildQuery, type ResolvedStream } from '../../lsl/resolver.js';
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

export class LslDriver implements LiveEegDriver {
  private readonly parsed: LslArgument;
  private readonly network: LslNetwork;
  private readonly query: string;
  private readonly reader: LslReader;
  private readonly samples = new ListenerSet<LiveSamples>();
  private readonly links = new ListenerSet<LiveLinkEvent>();
  private lslChannels: LslChannel[] = [];
  private opened = false;
  private closed = false;

  constructor(
    private readonly argument: string,
    private readonly options: LslDriverOptions = {},
  ) {
    this.parsed = parseLslArgument(argument);
    this.network = options.network ?? LOOPBACK_NETWORK;
    this.query = buildQuery(this.parsed.query, this.network.sessionId);
    this.reader = new LslReader(
      {
        query: this.query,
        network: this.network,
        reader: 'the LSL device',
        settleMs: SETTLE_MS,
        accept: (stream, columns) => this.sameChannels(stream, columns),
      },
      {
        blocks: (blocks) => {
          for (const block of blocks) this.samples.emit(block);
        },
        lost: (stream, reason) => {
          this.links.emit({
            kind: 'lost',
            message: `${describeStream(stream)} lost (${reason}); looking for it again every ${LOOK_AGAIN_MS / 1000} s`,
          });
          this.log(`${describeStream(stream)} lost (${reason})`);
        },
        refused: (stream, problem) => {
          this.links.emit({
            kind: 'lost',
            message: `${describeStream(stream)} is back but ${problem}: it is not played; restart headsetd to play it, or restart the outlet as it was`,
          });
        },
        restored: (stream, sameOutlet) => {
          this.links.emit({
            kind: 'restored',
            message: `${describeStream(stream)} is back${sameOutlet ? '' : ' (a new outlet of the same source)'}; the next frame is marked discontinuous`,
          });
        },
        closeSample: (sample) => {
          this.log(leftOutNote(sample, false));
        },
      },
    );
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
    let stream: ResolvedStream;
    try {
      stream = await this.reader.open(waitMs);
    } catch (error) {
      if (!(error instanceof LslOpenError)) throw error;
      if (error.kind === 'resolve')
        throw this.unavailable(`Cannot look for LSL streams (${words}): ${error.message}.`);
      if (error.kind === 'unreadable') throw this.unavailable(error.message);
      const where =
        this.network.interfaces.length === 0 && this.network.knownPeers.length === 0
          ? 'on this machine (LSL is on loopback: open lsl.interfaces or name lsl.knownPeers for an outlet on another machine)'
          : `on this machine and through ${[...this.network.interfaces, ...this.network.knownPeers].join(', ')}`;
      throw this.unavailable(
        `No LSL stream matches ${words} (LSL query ${this.query}) ${where} within ${waitMs / 1000} s: start the program that publishes it (OpenBCI GUI's LSL widget, a BrainFlow or pylsl outlet), check its name and type, or wait longer with ?wait=<seconds>.`,
      );
    }
    this.lslChannels = mapLslChannels(stream, this.reader.columns, this.parsed.channels, this.argument);
    this.opened = true;
    const unplayed = describeUnplayed(this.lslChannels);
    this.log(
      `playing ${this.info().source}${unplayed.length === 0 ? '' : `; channels not played: ${unplayed.join(', ')}`}`,
    );
  }

  /** Why a returning outlet cannot continue the device's channels (their names), or undefined when it can. */
  private sameChannels(next: ResolvedStream, columns: readonly LslColumn[]): string | undefined {
    let channels: LslChannel[];
    try {
      channels = mapLslChannels(next, columns, this.parsed.channels, this.argument);
    } catch (error) {
      return (error as Error).message;
    }
    if (channels.some((channel, c) => channel.name !== this.lslChannels[c]?.name)) {
      return `its channels (${channels.map((channel) => channel.label).join(', ')}) are not the ones played (${this.lslChannels.map((channel) => channel.label).join(', ')})`;
    }
    this.lslChannels = channels;
    return undefined;
  }

  info(): LiveDriverInfo {
    const s = this.opened ? this.reader.stream : undefined;
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
    const others = this.reader.alsoMatching;
    const parts = [describeStream(s)];
    if (others.length > 0) {
      parts.push(
        `the first by name, source id, host and creation time of ${others.length + 1} streams matching ${describeQuery(this.parsed.query)} (also: ${others.map((o) => `'${o.name}' on ${o.hostname || o.v4address}`).join(', ')})`,
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
    return this.opened ? (this.reader.stream?.nominalSrate ?? 0) : 0;
  }

  range(): number | undefined {
    return undefined;
  }

  status(): LslDriverStatus {
    const status = this.reader.status();
    return {
      connected: status.connected,
      clockOffsetMs: status.correction * 1000,
      recoveries: status.recoveries,
      closeSamplesDropped: status.closeSamplesDropped,
    };
  }

  async start(): Promise<void> {
    if (this.closed) throw new DeviceUnavailableError('closed', 'The LSL device is closed.');
    if (!this.opened) {
      throw new DeviceUnavailableError('disconnected', 'The LSL device is not open: call open() first.');
    }
    this.reader.start();
    await Promise.resolve();
  }

  async stop(): Promise<void> {
    await this.reader.stop();
  }

  onSamples(listener: (samples: LiveSamples) => void): Unsubscribe {
    return this.samples.add(listener);
  }

  onLink(listener: (event: LiveLinkEvent) => void): Unsubscribe {
    return this.links.add(listener);
  }

  async close(): Promise<void> {
    await this.reader.close();
    this.closed = true;
    this.samples.clear();
    this.links.clear();
  }
}

/** The driver for `--device lsl:<argument>`; refuses a malformed argument at once (`validation_failed`). */
export function createLslDriver(argument: string, options: LslDriverOptions = {}): LslDriver {
  return new LslDriver(argument, options);
}
