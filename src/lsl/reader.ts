/**
 * The one LSL reader: finds a stream by its query, reads it through an inlet with time correction,
 * times its samples on this machine's clock (timeline.ts), and finds it again when its outlet goes
 * and comes back. The LSL device (`--device lsl:<query>`, device/lsl/) and the `lsl-inlet` node
 * (streams/executables/lsl-inlet.ts) both read with it; each keeps only what is its own (the device its
 * channel names, link events and the live headset's contract; the node its frames and status).
 *
 * - `open()` resolves the query within a wait and reads the stream's full info (its channels'
 *   labels, units and types: columns.ts). `settleMs` is how long it listens for more answers
 *   after the first (0: none, as liblsl's `resolve_stream` stops at the first answer); of the
 *   streams that answered it takes the first by name, source id, host, creation time and uid. A stream
 *   whose samples cannot be read (irregular rate, a string or 64-bit format, no channel) is
 *   refused saying why (`LslOpenError`).
 * - `start()` reads it: each batch of samples the feed delivers is timed by the timeline (the
 *   correction, measured with LSL's probes at open and every 5 s, added to the outlet's stamps,
 *   then liblsl's dejitter fit) into blocks in the columns' frame units.
 * - When the outlet goes (its program stopped or was killed, the network cut), `lost`; the reader
 *   looks for it again, every 2 s, by its source id, name and type (without a source id, by the
 *   query, name, type and host), and when it is back `restored`, and the next block is marked
 *   `discontinuity`. An outlet back with another rate, channel count or format, or one the user's
 *   `accept` refuses, is not read (`refused` says why) until one that fits is there.
 * - The sample liblsl 1.16 sends as its outlet closes is left out (close-sample.ts): `closeSample`.
 */
import { measureTimeCorrection, fetchFullInfo, type Feed, openFeed } from './inlet.js';
import type { Sample } from './close-sample.js';
import { type LslColumn, lslColumns } from './columns.js';
import { READABLE_FORMATS, type ReadableFormat } from './info.js';
import type { LslNetwork } from './network.js';
import { type ResolvedStream, resolveStreams, xpathLiteral } from './resolver.js';
import { type LslBlock, LslTimeline } from './timeline.js';

/** How often the reader looks for a stream that went, ms (one resolve wave). */
export const LOOK_AGAIN_MS = 2000;
/** The wait before looking again for an outlet whose feed ended before a sample came, ms. */
const RETRY_MS = 2000;
const FULL_INFO_MS = 5000;
const CORRECTION_INTERVAL_MS = 5000;
/** Rows held for a question of the timeline leave, answered "no loss", after this long without a sample, ms. */
const HELD_IDLE_MS = 1000;
/** The buffer the outlet keeps for this inlet, s (liblsl's default is 360). */
const MAX_BUFFERED_S = 60;

export interface LslReaderOptions {
  /** The LSL query (resolver.ts `buildQuery`). */
  readonly query: string;
  readonly network: LslNetwork;
  /** Who reads, in messages (`the LSL device`, `lsl-inlet`). */
  readonly reader: string;
  /** How long `open()` listens for more answers after the first, ms; 0 takes the first. */
  readonly settleMs: number;
  /**
   * Whether the reader's user can go on with an outlet that came back with the same rate, channel
   * count and format (the LSL device: the same channel names); undefined when it can, else why not.
   */
  readonly accept?: (stream: ResolvedStream, columns: readonly LslColumn[]) => string | undefined;
}

/** What happens while the reader reads; every member optional but `blocks`. */
export interface LslReaderEvents {
  /** Timed blocks, in order. */
  blocks(blocks: readonly LslBlock[]): void;
  /** The reader starts reading `stream` (at start, and at each outlet that came back). */
  reading?(stream: ResolvedStream): void;
  /** The outlet has a queue for this reader's feed: every sample it pushes from now on comes. */
  connected?(stream: ResolvedStream): void;
  /** The feed of `stream` ended (`reason`); the reader looks for it again. */
  lost?(stream: ResolvedStream, reason: string): void;
  /** An outlet of the stream is back but is not read, because of `problem`. */
  refused?(stream: ResolvedStream, problem: string): void;
  /** The stream is back (`sameOutlet`: the same uid, its feed had broken); the next block is marked. */
  restored?(stream: ResolvedStream, sameOutlet: boolean): void;
  /** A new time correction, s. */
  correction?(seconds: number): void;
  /** The sample left out at an outlet's close (close-sample.ts). */
  closeSample?(sample: Sample): void;
}

/** What the reader knows beyond its blocks, for a status. */
export interface LslReaderStatus {
  /** The outlet has a queue for this reader's feed. */
  readonly connected: boolean;
  /** The time correction in use (the outlet's clock onto this machine's LSL clock), s. */
  readonly correction: number;
  /** Times the feed ended and the reader looked for the stream again. */
  readonly losses: number;
  /** Times the stream came back. */
  readonly recoveries: number;
  /** Samples liblsl 1.16 sends as its outlet closes, left out. */
  readonly closeSamplesDropped: number;
}

/** Why `open()` has no stream to read: `resolve` (the query could not be sent), `none` (no answer), `unreadable`. */
// eslint-disable-next-line no-restricted-syntax -- lsl/ sits below the catalogue; the LSL device turns it into its device error, lsl-inlet into waiting or the node's failure.
export class LslOpenError extends Error {
  constructor(
    readonly kind: 'resolve' | 'none' | 'unreadable',
    message: string,
  ) {
    super(message);
    this.name = 'LslOpenError';
  }
}

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

/** A stream in words, for messages. */
export const describeStream = (s: ResolvedStream): string =>
  `LSL stream '${s.name}' (type ${s.type || 'none'}${s.sourceId === '' ? ', no source id' : `, source id ${s.sourceId}`}) on host ${s.hostname || 'unknown'} (${s.v4address})`;

export class LslReader {
  private current: ResolvedStream | undefined;
  private others: ResolvedStream[] = [];
  private cols: LslColumn[] = [];
  private timeline: LslTimeline | undefined;
  private correction = 0;
  private running = false;
  private connected = false;
  private losses = 0;
  private recoveries = 0;
  private closeSamplesDropped = 0;
  private rowsDelivered = 0;
  /** Aborts an `open()` in progress (close). */
  private readonly closing = new AbortController();
  /** Aborts the waits of one run (stop). */
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  private feed: Feed | undefined;
  private endRead: ((reason: string) => void) | undefined;
  private correctionTimer: NodeJS.Timeout | undefined;
  private heldTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: LslReaderOptions,
    private readonly events: LslReaderEvents,
  ) {}

  /** The stream read (the last outlet found), once open. */
  get stream(): ResolvedStream | undefined {
    return this.current;
  }

  /** The other streams that answered the query at open, not read. */
  get alsoMatching(): readonly ResolvedStream[] {
    return this.others;
  }

  /** The stream's columns (labels, units), once open. */
  get columns(): readonly LslColumn[] {
    return this.cols;
  }

  status(): LslReaderStatus {
    return {
      connected: this.connected,
      correction: this.correction,
      losses: this.losses,
      recoveries: this.recoveries,
      closeSamplesDropped: this.closeSamplesDropped,
    };
  }

  /** Finds the stream within `waitMs` and reads its description; throws `LslOpenError`. */
  async open(waitMs: number): Promise<ResolvedStream> {
    const { query, network, settleMs } = this.options;
    let matches: ResolvedStream[];
    try {
      matches = await resolveStreams(query, network, {
        timeoutMs: waitMs,
        settleMs,
        signal: this.closing.signal,
      });
    } catch (error) {
      throw new LslOpenError('resolve', (error as Error).message);
    }
    if (matches.length === 0) throw new LslOpenError('none', `No LSL stream matches ${query}.`);
    matches.sort(byIdentity);
    const chosen = matches[0] as ResolvedStream;
    let full: ResolvedStream;
    try {
      full = await fetchFullInfo(chosen, FULL_INFO_MS);
    } catch (error) {
      throw new LslOpenError(
        'unreadable',
        `${describeStream(chosen)} answered but its description could not be read: ${(error as Error).message}.`,
      );
    }
    const problem = this.unreadable(full);
    if (problem !== undefined) throw new LslOpenError('unreadable', `${describeStream(full)} ${problem}.`);
    this.current = full;
    this.others = matches.slice(1);
    this.cols = lslColumns(full);
    this.timeline = new LslTimeline(
      full.nominalSrate,
      this.cols.map((column) => column.scale),
    );
    await this.measureCorrection(full);
    return full;
  }

  /** Why the samples of `stream` cannot be read, or undefined. */
  private unreadable(stream: ResolvedStream): string | undefined {
    if (!READABLE_FORMATS.includes(stream.channelFormat as ReadableFormat))
      return `sends ${stream.channelFormat} values; ${this.options.reader} reads ${READABLE_FORMATS.join(', ')}`;
    if (!(stream.nominalSrate > 0))
      return `has an irregular rate (nominal_srate 0); ${this.options.reader} plays streams with a nominal rate only`;
    if (stream.channelCount < 1) return 'has no channel';
    return undefined;
  }

  /** Measures the time correction of `stream`'s outlet; keeps the last one when it does not answer. */
  private async measureCorrection(stream: ResolvedStream): Promise<void> {
    const correction = await measureTimeCorrection(stream).catch(() => undefined);
    if (correction === undefined) return;
    this.correction = correction;
    this.events.correction?.(correction);
  }

  /** Starts reading the stream `open()` found (again after `stop()`). */
  start(): void {
    const stream = this.current;
    if (stream === undefined || this.timeline === undefined) throw new Error('the LSL reader is not open');
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    this.timeline.restart();
    this.loop = this.run(stream);
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
      this.losses++;
      this.events.lost?.(current, reason);
      const gone = current;
      const next = await this.findAgain(gone);
      if (next === undefined) return;
      current = next;
      // Another outlet may run on another machine: its clock's offset is measured before it is read.
      await this.measureCorrection(current);
      if (!this.isRunning()) return;
      this.recoveries++;
      if (current.uid === gone.uid) this.timeline?.resumed();
      else this.timeline?.newOutlet();
      this.current = current;
      this.events.restored?.(current, current.uid === gone.uid);
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
        ? [this.options.query, `hostname=${xpathLiteral(gone.hostname)}`]
        : [
            `session_id=${xpathLiteral(this.options.network.sessionId)}`,
            `source_id=${xpathLiteral(gone.sourceId)}`,
          ]),
      `name=${xpathLiteral(gone.name)}`,
      `type=${xpathLiteral(gone.type)}`,
    ];
    for (const uid of refused) same.push(`not(uid=${xpathLiteral(uid)})`);
    return same.join(' and ');
  }

  /** Looks for the stream until an outlet that fits answers, or the reader stops. */
  private async findAgain(gone: ResolvedStream): Promise<ResolvedStream | undefined> {
    const refused = new Set<string>();
    while (this.isRunning()) {
      const query = this.recoveryQuery(gone, refused);
      const found = await resolveStreams(query, this.options.network, {
        timeoutMs: LOOK_AGAIN_MS,
        settleMs: 0,
        signal: this.abort.signal,
      }).catch(() => [] as ResolvedStream[]);
      if (!this.isRunning()) return undefined;
      const candidate = found.sort(byIdentity)[0];
      if (candidate === undefined) continue;
      const full = await fetchFullInfo(candidate, FULL_INFO_MS).catch(() => undefined);
      if (full === undefined || !this.isRunning()) continue;
      const problem = this.misfit(full, gone);
      if (problem !== undefined) {
        refused.add(full.uid);
        this.events.refused?.(full, problem);
        continue;
      }
      return full;
    }
    return undefined;
  }

  /** Why a returning outlet cannot continue the stream, or undefined (then its columns are taken). */
  private misfit(next: ResolvedStream, gone: ResolvedStream): string | undefined {
    if (next.nominalSrate !== gone.nominalSrate)
      return `its rate is ${next.nominalSrate} Hz, not ${gone.nominalSrate} Hz`;
    if (next.channelCount !== gone.channelCount)
      return `it has ${next.channelCount} channels, not ${gone.channelCount}`;
    if (!READABLE_FORMATS.includes(next.channelFormat as ReadableFormat))
      return `it sends ${next.channelFormat} values`;
    const columns = lslColumns(next);
    const problem = this.options.accept?.(next, columns);
    if (problem !== undefined) return problem;
    // The outlet may declare other units: its values are scaled by its own.
    this.cols = columns;
    this.timeline?.setScales(columns.map((column) => column.scale));
    return undefined;
  }

  /** Reads one outlet until its feed ends; resolves with the reason. */
  private async read(stream: ResolvedStream): Promise<string> {
    this.events.reading?.(stream);
    this.correctionTimer = setInterval(() => {
      void this.measureCorrection(stream);
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
            this.events.closeSample?.(sample);
          },
          () => {
            this.connected = true;
            this.events.connected?.(stream);
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
      this.emit(this.timeline?.drain() ?? []);
    }
  }

  /** Waits `ms`, or less when the reader stops. */
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
    this.emit(this.timeline.blocks(values, stamps, this.correction));
    clearTimeout(this.heldTimer);
    if (this.timeline.heldRows() > 0) {
      // The stream may pause right after a jump: its rows do not wait for the answer forever.
      this.heldTimer = setTimeout(() => {
        if (this.running) this.emit(this.timeline?.drain() ?? []);
      }, HELD_IDLE_MS);
    }
  }

  private emit(blocks: readonly LslBlock[]): void {
    if (blocks.length > 0) this.events.blocks(blocks);
  }

  /** Stops reading; the last sample the outlet sent comes out first, when the outlet still runs. */
  async stop(): Promise<void> {
    // The last sample of the last batch is held back until the outlet shows it still runs: ask it
    // now, so that a stop delivers it rather than dropping a real sample.
    if (this.running) await this.feed?.settle();
    if (this.running) this.emit(this.timeline?.drain() ?? []);
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

  /** Stops, and ends an `open()` in progress (it throws `none`). */
  async close(): Promise<void> {
    this.closing.abort();
    await this.stop();
  }
}
