/**
 * The `lsl-inlet` built-in (a source): finds an LSL stream on the network by a query (name, type,
 * source id, or an XPath predicate, as liblsl's resolvers take them), reads it with time
 * correction and emits its samples as frames on headsetd's clock, with the stream's channel labels
 * and nominal rate (docs/lsl.md).
 *
 * Each batch of samples that arrives is one frame, stamped with its first sample's time: the
 * outlet's timestamp plus the time correction (the outlet's clock onto this machine's LSL clock),
 * then onto the frames' wall clock (lsl/clock.ts). A jump between batches of more than half a
 * sample period from the nominal spacing marks the frame `discontinuity`. When the outlet goes away
 * the node looks for it again (by its source id, name, type and shape when it has a source id, as
 * liblsl's recovery does) and goes on with the next outlet of that source. The sample liblsl 1.16
 * sends as its outlet closes is left out (lsl/close-sample.ts) and counted in `closeSamplesDropped`.
 */
import type { Frame } from '../core/frame.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../core/node.js';
import { lslToUnixMs } from '../lsl/clock.js';
import { leftOutNote } from '../lsl/close-sample.js';
import { type Feed, fetchFullInfo, measureTimeCorrection, openFeed } from '../lsl/inlet.js';
import { buildQuery, type ResolvedStream, resolveStream, xpathLiteral } from '../lsl/resolver.js';
import { checkInterfaces, lslNetworkOf } from './lsl-outlet.js';

const RESOLVE_WAVE_MS = 2000;
const RETRY_MS = 500;
const CORRECTION_INTERVAL_MS = 5000;
/** The buffer the outlet keeps for this inlet, s (liblsl's default is 360). */
const MAX_BUFFERED_S = 60;

export interface LslInletConfig {
  name?: string;
  type?: string;
  sourceId?: string;
  predicate?: string;
}

class LslInletNode implements NodeInstance {
  private stopped = false;
  private readonly abort = new AbortController();
  private feed: Feed | undefined;
  private correction = 0;
  private correctionTimer: NodeJS.Timeout | undefined;
  private nextTimestamp: number | undefined;
  private gap = true;
  private recoveries = 0;
  private closeSamplesDropped = 0;
  private loop: Promise<void> | undefined;
  /** Ends the read in progress (stop). */
  private endRead: ((reason: string) => void) | undefined;

  constructor(
    private readonly context: NodeContext,
    private readonly config: LslInletConfig,
  ) {}

  async start(): Promise<void> {
    const network = lslNetworkOf(this.context);
    checkInterfaces(network);
    const query = buildQuery(this.config, network.sessionId);
    this.context.setInfo({
      query,
      connected: false,
      resolved: null,
      clockOffsetMs: null,
      recoveries: 0,
      closeSamplesDropped: 0,
    });
    this.loop = this.run(query);
    await Promise.resolve();
  }

  /** Read through a method: `stopped` changes while the loop awaits. */
  private isStopped(): boolean {
    return this.stopped;
  }

  /** Resolves, reads until the feed ends, then looks for the stream again: until stopped. */
  private async run(firstQuery: string): Promise<void> {
    const network = lslNetworkOf(this.context);
    let query = firstQuery;
    let waiting = false;
    while (!this.stopped) {
      const found = await resolveStream(query, network, RESOLVE_WAVE_MS, this.abort.signal).catch(
        async (error: unknown) => {
          this.context.log(`resolve failed: ${(error as Error).message}`);
          await new Promise((resolve) => setTimeout(resolve, RESOLVE_WAVE_MS));
          return undefined;
        },
      );
      if (this.isStopped()) return;
      if (found === undefined) {
        if (!waiting) this.context.log(`waiting for an LSL stream matching ${query}`);
        waiting = true;
        continue;
      }
      waiting = false;
      try {
        const reason = await this.read(found);
        if (this.isStopped()) return;
        this.context.log(`LSL stream '${found.name}' lost (${reason}); looking for it again`);
      } catch (error) {
        if (this.isStopped()) return;
        this.context.log(`cannot read LSL stream '${found.name}': ${(error as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
      // liblsl's recovery: the same source (and shape) under a new uid.
      if (found.sourceId !== '') {
        query = [
          `channel_count='${found.channelCount}'`,
          `name=${xpathLiteral(found.name)}`,
          `type=${xpathLiteral(found.type)}`,
          `source_id=${xpathLiteral(found.sourceId)}`,
          `channel_format='${found.channelFormat}'`,
        ].join(' and ');
      }
      this.recoveries++;
      this.gap = true;
      this.context.setInfo({ connected: false, recoveries: this.recoveries });
    }
  }

  /** Reads one outlet until its feed ends; resolves with the reason. */
  private async read(found: ResolvedStream): Promise<string> {
    const stream = await fetchFullInfo(found, 5000);
    if (stream.channelFormat !== 'float32' && stream.channelFormat !== 'double64') {
      throw new Error(
        `its channel format ${stream.channelFormat} is not read by headsetd (float32 and double64 are)`,
      );
    }
    if (!(stream.nominalSrate > 0)) {
      throw new Error('it has no nominal rate (an irregular stream); frames need one');
    }
    const labels = Array.from(
      { length: stream.channelCount },
      (_, c) => stream.channels[c]?.label ?? `ch${c + 1}`,
    ).map((label, c) => (label === '' ? `ch${c + 1}` : label));
    await this.updateCorrection(stream);
    this.context.setInfo({
      connected: true,
      resolved: {
        name: stream.name,
        type: stream.type,
        sourceId: stream.sourceId,
        uid: stream.uid,
        hostname: stream.hostname,
        address: stream.v4address,
        channels: stream.channelCount,
        sampleRate: stream.nominalSrate,
        channelFormat: stream.channelFormat,
      },
    });
    this.context.log(
      `reading LSL stream '${stream.name}' (${stream.type}, ${stream.channelCount} channels at ${stream.nominalSrate} Hz) from ${stream.hostname} ${stream.v4address}`,
    );
    this.correctionTimer = setInterval(() => {
      void this.updateCorrection(stream);
    }, CORRECTION_INTERVAL_MS);
    try {
      return await new Promise<string>((resolve) => {
        this.endRead = resolve;
        this.feed = openFeed(
          stream,
          Math.ceil(MAX_BUFFERED_S * stream.nominalSrate),
          (values, timestamps) => {
            this.emit(stream, labels, values, timestamps);
          },
          resolve,
          (sample) => {
            this.closeSamplesDropped++;
            this.context.setInfo({ closeSamplesDropped: this.closeSamplesDropped });
            this.context.log(leftOutNote(sample, true));
          },
        );
        if (this.stopped) resolve('stopped');
      });
    } finally {
      this.endRead = undefined;
      clearInterval(this.correctionTimer);
      this.feed?.close();
      this.feed = undefined;
    }
  }

  private async updateCorrection(stream: ResolvedStream): Promise<void> {
    const correction = await measureTimeCorrection(stream).catch(() => undefined);
    if (correction === undefined || this.stopped) return;
    this.correction = correction;
    this.context.setInfo({ clockOffsetMs: correction * 1000 });
  }

  private emit(stream: ResolvedStream, labels: string[], values: number[], timestamps: number[]): void {
    const rate = stream.nominalSrate;
    const first = (timestamps[0] ?? 0) + this.correction;
    const discontinuity =
      this.gap || (this.nextTimestamp !== undefined && Math.abs(first - this.nextTimestamp) > 0.5 / rate);
    this.gap = false;
    this.nextTimestamp = first + timestamps.length / rate;
    const frame: Frame = {
      seq: 0,
      timestamp: lslToUnixMs(first),
      sampleRate: rate,
      channels: labels,
      data: Float32Array.from(values),
      ...(discontinuity ? { discontinuity: true } : {}),
    };
    this.context.emit('out', frame);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    clearInterval(this.correctionTimer);
    this.feed?.close();
    this.endRead?.('stopped');
    await this.loop;
  }
}

export const createLslInlet: NodeFactory = (context) => new LslInletNode(context, context.config);
