/** Shared helpers of the runtime tests: definitions, a WebSocket frame collector, polling. */
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import type { FrameJson } from '../../src/core/frame.js';
import type { NodeDef, PipeDef, StreamDefinition } from '../../src/core/stream-model.js';

export const TEST_NODES_MODULE = new URL('./fixtures/test-nodes.ts', import.meta.url).href;

export function definition(nodes: NodeDef[], pipes: PipeDef[], id: string = randomUUID()): StreamDefinition {
  const now = new Date().toISOString();
  return { id, meta: { created: now, updated: now }, nodes, pipes };
}

export function pipe(id: string, source: string, destination: string, extra: Partial<PipeDef> = {}): PipeDef {
  return { id, source, destination, ...extra };
}

export interface Received {
  frame: FrameJson;
  /** performance.now() at arrival, ms. */
  at: number;
  /** Date.now() at arrival (the clock frames' `timestamp` is on), ms. */
  wallAt: number;
}

/**
 * What a clock-paced source must show, with no assertion on how fast the machine is:
 * - its frames' timestamps follow their sample counts exactly (no drift in the stream's timeline);
 * - no frame arrived before its last sample was due (load can only delay a frame, never advance
 *   it, so this holds on a busy machine; `slackMs` covers millisecond rounding of the clocks).
 * Answers the problems found, empty when none.
 */
export function pacingProblems(received: readonly Received[], slackMs = 2): string[] {
  const problems: string[] = [];
  for (let k = 0; k < received.length; k++) {
    const { frame, wallAt } = received[k]!;
    const period = 1000 / frame.sampleRate;
    const lastDue = frame.timestamp + (frame.data.length - 1) * period;
    if (wallAt + slackMs < lastDue) {
      problems.push(
        `frame seq ${frame.seq} arrived ${(lastDue - wallAt).toFixed(1)} ms before its last sample was due`,
      );
    }
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
export class FrameClient {
  readonly frames: Received[] = [];
  readonly socket: WebSocket;
  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data, isBinary) => {
      if (!isBinary)
        this.frames.push({
          frame: JSON.parse((data as Buffer).toString('utf8')) as FrameJson,
          at: performance.now(),
          wallAt: Date.now(),
        });
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
    (this.socket as unknown as { _socket: { pause(): void } })._socket.pause();
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
