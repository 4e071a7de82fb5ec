/** Shared helpers of the runtime tests: definitions, a WebSocket frame collector, polling. */
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { type FrameJson, sampleFromJson } from '../../src/core/frame.js';
import type { NodeDef, PipeDef, StreamDefinition } from '../../src/core/stream-model.js';

export { TEST_NODES_MODULE } from '../support/stream-host.js';

export function definition(nodes: NodeDef[], pipes: PipeDef[], id: string = randomUUID()): StreamDefinition {
  const now = new Date().toISOString();
  return { id, meta: { created: now, updated: now }, nodes, pipes };
}

export function pipe(id: string, source: string, destination: string, extra: Partial<PipeDef> = {}): PipeDef {
  return { id, source, destination, ...extra };
}

/** A JSON frame as a client reads it: the samples' strings ("NaN", "Infinity", "-Infinity") made numbers. */
export type ReadFrame = Omit<FrameJson, 'data'> & { data: number[][] };

export interface Received {
  frame: ReadFrame;
}

/** Reads a JSON frame's text; a value that is no sample of the documented encoding throws. */
export function readJsonFrame(text: string): ReadFrame {
  const json = JSON.parse(text) as FrameJson;
  const data = json.data.map((row, i) =>
    row.map((value, c) => {
      const sample = sampleFromJson(value);
      if (sample === undefined) throw new Error(`data[${i}][${c}] is ${JSON.stringify(value)}: not a sample`);
      return sample;
    }),
  );
  return { ...json, data };
}

/**
 * What a clock-paced source must show, read from the frames' own times only (no clock of the
 * test, no assertion on how fast the machine is): its frames' timestamps follow their sample
 * counts exactly, so the stream's timeline never drifts nor jumps without a `discontinuity`.
 * That no frame leaves before its last sample is due is the source's own property, shown on a
 * faked clock (src/streams/executables/signal-generator.test.ts): load only delays a frame downstream.
 * Answers the problems found, empty when none.
 */
export function pacingProblems(received: readonly Received[]): string[] {
  const problems: string[] = [];
  for (let k = 0; k < received.length; k++) {
    const { frame } = received[k]!;
    const period = 1000 / frame.sampleRate;
    const next = received[k + 1]?.frame;
    if (next !== undefined && next.discontinuity !== true) {
      const expected = frame.timestamp + frame.data.length * period;
      if (Math.abs(next.timestamp - expected) > 1e-6) {
        problems.push(
          `frame seq ${next.seq} starts at ${next.timestamp}, ${next.timestamp - expected} ms off its sample count`,
        );
      }
    }
  }
  return problems;
}

/** A WebSocket client that keeps every JSON frame it receives. */
/**
 * A frame as received, decoded when first read: the client only keeps the text while frames come,
 * so that it keeps reading as fast as the server sends (thousands of samples a second) on a machine
 * whose cores are busy, instead of falling behind and being dropped as a stalled client is.
 */
class ReceivedText implements Received {
  private decoded: ReadFrame | undefined;

  constructor(private readonly text: string) {}

  get frame(): ReadFrame {
    this.decoded ??= readJsonFrame(this.text);
    return this.decoded;
  }
}

export class FrameClient {
  readonly frames: Received[] = [];
  readonly socket: WebSocket;
  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data, isBinary) => {
      if (!isBinary) this.frames.push(new ReceivedText((data as Buffer).toString('utf8')));
    });
  }

  static async connect(port: number, host = '127.0.0.1'): Promise<FrameClient> {
    const socket = new WebSocket(`ws://${host}:${port}/`);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => {
        resolve();
      });
      socket.once('error', reject);
    });
    return new FrameClient(socket);
  }

  /** Stops reading from the socket: the server's send buffer fills, as with a stalled client. */
  stall(): void {
    this.connection().pause();
  }

  /** Reads from the socket again after {@link stall}. */
  resume(): void {
    this.connection().resume();
  }

  /** This end's address and port, as the server names the client (IPv4). */
  name(): string {
    const connection = this.connection();
    return `${connection.localAddress}:${connection.localPort}`;
  }

  /**
   * Resolves once every message the server sent before it answered a ping has arrived: the pong
   * comes on the same connection behind them.
   */
  async drained(): Promise<void> {
    const pong = new Promise<void>((resolve) =>
      this.socket.once('pong', () => {
        resolve();
      }),
    );
    this.socket.ping();
    await pong;
  }

  private connection(): { pause(): void; resume(): void; localAddress: string; localPort: number } {
    return (this.socket as unknown as { _socket: ReturnType<FrameClient['connection']> })._socket;
  }

  close(): void {
    this.socket.terminate();
  }

  samples(): number {
    return this.frames.reduce((sum, r) => sum + r.frame.data.length, 0);
  }

  seqs(): number[] {
    return this.frames.map((r) => r.frame.seq);
  }
}

/** Indices where seq does not follow its predecessor by exactly 1. */
export function seqGaps(seqs: number[]): number[] {
  const gaps: number[] = [];
  for (let i = 1; i < seqs.length; i++) if (seqs[i] !== (seqs[i - 1] ?? 0) + 1) gaps.push(i);
  return gaps;
}
