/**
 * The `lsl-inlet` built-in (a source): finds an LSL stream on the network by a query (name, type,
 * source id, or an XPath predicate, as liblsl's resolvers take them) and emits its samples as
 * frames on headsetd's clock, with the stream's channel labels, units and nominal rate (docs/lsl.md).
 *
 * It reads with the one LSL reader (lsl/reader.ts), as the LSL device does: the time correction
 * and timeline (liblsl's clock sync and dejitter; rows lost counted, never filled), recovery when
 * the outlet goes and comes back, the sample liblsl 1.16 sends as its outlet closes left out, and
 * each channel in its frame unit (a voltage in µV, any other unit as the outlet declares it). What
 * is the node's own: waiting, however long, for the stream to appear; each block of the reader as
 * one frame; its status.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { type Frame, unitsOrNone } from '../../core/frame.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../../core/node.js';
import { leftOutNote } from '../../lsl/close-sample.js';
import type { LslColumn } from '../../lsl/columns.js';
import { describeStream, LOOK_AGAIN_MS, LslOpenError, LslReader } from '../../lsl/reader.js';
import { buildQuery, type ResolvedStream } from '../../lsl/resolver.js';
import type { LslBlock } from '../../lsl/timeline.js';
import { checkInterfaces, lslNetworkOf } from './lsl-outlet.js';

/** The wait before trying again a stream that answered but could not be read, ms. */
const RETRY_MS = 2000;

export interface LslInletConfig {
  name?: string;
  type?: string;
  sourceId?: string;
  predicate?: string;
}

class LslInletNode implements NodeInstance {
  private stopped = false;
  private readonly abort = new AbortController();
  private reader: LslReader | undefined;
  private loop: Promise<void> | undefined;
  /** The frames' channel names and units, from the columns of the stream read. */
  private labels: readonly string[] = [];
  private units: readonly string[] | undefined;
  private rate = 0;
  /** The first frame of the node is marked `discontinuity`: nothing came before it. */
  private first = true;

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
    const log = (line: string) => {
      this.context.log(line);
    };
    const reader = new LslReader(
      { query, network, reader: 'lsl-inlet', settleMs: 0 },
      {
        blocks: (blocks) => {
          for (const block of blocks) this.emit(block);
        },
        reading: (stream) => {
          this.read(stream, reader.columns);
        },
        connected: () => {
          this.context.setInfo({ connected: true });
        },
        lost: (stream, reason) => {
          log(`LSL stream '${stream.name}' lost (${reason}); looking for it again`);
          this.context.setInfo({ connected: false, recoveries: reader.status().losses });
        },
        refused: (stream, problem) => {
          log(`${describeStream(stream)} is back but ${problem}: it is not read; looking on`);
        },
        correction: (seconds) => {
          this.context.setInfo({ clockOffsetMs: seconds * 1000 });
        },
        closeSample: (sample) => {
          this.context.setInfo({ closeSamplesDropped: reader.status().closeSamplesDropped });
          log(leftOutNote(sample, true));
        },
      },
    );
    this.reader = reader;
    this.loop = this.run(reader, query);
    await Promise.resolve();
  }

  /** Read through a method: `stopped` changes while the loop awaits. */
  private isStopped(): boolean {
    return this.stopped;
  }

  /** Waits for the stream, however long, then reads it (the reader recovers it on its own). */
  private async run(reader: LslReader, query: string): Promise<void> {
    let said: string | undefined;
    const say = (line: string) => {
      if (line !== said) this.context.log(line);
      said = line;
    };
    while (!this.isStopped()) {
      try {
        await reader.open(LOOK_AGAIN_MS);
        break;
      } catch (error) {
        if (this.isStopped()) return;
        if (error instanceof LslOpenError && error.kind === 'none') {
          say(`waiting for an LSL stream matching ${query}`);
          continue;
        }
        say(`cannot read: ${(error as Error).message}`);
        await delay(RETRY_MS, undefined, { signal: this.abort.signal }).catch(() => undefined);
      }
    }
    if (this.isStopped()) return;
    reader.start();
  }

  /** The reader begins reading `stream`: the frames take its columns' labels and units. */
  private read(stream: ResolvedStream, columns: readonly LslColumn[]): void {
    this.labels = columns.map((column) => column.label);
    this.rate = stream.nominalSrate;
    this.units = unitsOrNone(columns.map((column) => column.unit));
    this.context.setInfo({
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
  }

  private emit(block: LslBlock): void {
    const discontinuity = block.discontinuity || this.first;
    this.first = false;
    const frame: Frame = {
      seq: 0,
      timestamp: block.timestamp,
      sampleRate: this.rate,
      channels: this.labels,
      data: block.data,
      ...(this.units === undefined ? {} : { units: this.units }),
      ...(discontinuity ? { discontinuity: true } : {}),
      ...(block.lost > 0 ? { lostSamples: block.lost } : {}),
    };
    this.context.emit('out', frame);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.reader?.close();
    await this.loop;
  }
}

export const createLslInlet: NodeFactory = (context) => new LslInletNode(context, context.config);
