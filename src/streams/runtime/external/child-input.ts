/**
 * What the worker writes to a child's stdin, bounded. A child that reads slowly fills its pipe;
 * from then on frames wait here, at most `maxQueuedFrames` of them, and the oldest is dropped
 * (and counted) when another arrives, as a `drop-oldest` pipe would. Control messages (config,
 * signals) are never dropped and keep their place among the frames, so a marker stays between the
 * frames it was sent between.
 */
import type { Writable } from 'node:stream';
import { encodeMessage } from '../../../core/protocol/codec.js';
import type { ParentMessage, ProtocolEncoding } from '../../../core/protocol/messages.js';

export class ChildInput {
  private readonly queue: ParentMessage[] = [];
  private queuedFrames = 0;
  private waitingForDrain = false;
  private ending = false;
  private closed = false;
  private corked = false;
  /** Frames dropped because the child read too slowly. */
  dropped = 0;

  constructor(
    private readonly stdin: Writable,
    private readonly encoding: ProtocolEncoding,
    private readonly maxQueuedFrames: number,
    private readonly onDrop: () => void,
  ) {
    stdin.on('drain', () => {
      this.waitingForDrain = false;
      this.flush();
    });
    // EPIPE once the child is gone: its exit is reported by the process's exit event, not here.
    stdin.on('error', () => {
      this.closed = true;
    });
    stdin.on('close', () => {
      this.closed = true;
    });
  }

  /** Frames queued because the child is not reading fast enough. */
  get queueDepth(): number {
    return this.queuedFrames;
  }

  send(message: ParentMessage): void {
    if (this.ending) return;
    if (this.closed) {
      // The child closed its stdin (or exited) while it still has inputs: a frame sent now is
      // lost, and counted so, rather than counted as delivered.
      if (message.type === 'frame') this.countDrop();
      return;
    }
    if (!this.waitingForDrain && this.queue.length === 0) {
      this.write(message);
      return;
    }
    this.queue.push(message);
    if (message.type === 'frame') {
      this.queuedFrames += 1;
      if (this.queuedFrames > this.maxQueuedFrames) this.dropOldestFrame();
    }
  }

  /** Closes stdin once everything queued is written: the child sees EOF. */
  end(): void {
    if (this.ending) return;
    this.ending = true;
    this.flush();
  }

  private write(message: ParentMessage): void {
    if (this.closed) return;
    this.corkForThisTurn();
    if (!this.stdin.write(encodeMessage(this.encoding, message))) this.waitingForDrain = true;
  }

  /**
   * Writes of one turn of the event loop leave in one system call: a stream emitting a burst of
   * frames (a fan-out, a catch-up after a pause) would otherwise pay a pipe write and a wake-up of
   * the child per frame. The writes are released at the end of the current task (a microtask), so
   * a single frame waits for nothing.
   */
  private corkForThisTurn(): void {
    if (this.corked) return;
    this.corked = true;
    this.stdin.cork();
    queueMicrotask(() => {
      this.corked = false;
      this.stdin.uncork();
    });
  }

  private flush(): void {
    while (!this.waitingForDrain && !this.closed) {
      const message = this.queue.shift();
      if (message === undefined) break;
      if (message.type === 'frame') this.queuedFrames -= 1;
      this.write(message);
    }
    if (this.ending && this.queue.length === 0 && !this.closed) {
      this.closed = true;
      this.stdin.end();
    }
  }

  private dropOldestFrame(): void {
    const index = this.queue.findIndex((message) => message.type === 'frame');
    if (index === -1) return;
    this.queue.splice(index, 1);
    this.queuedFrames -= 1;
    this.countDrop();
  }

  private countDrop(): void {
    this.dropped += 1;
    this.onDrop();
  }
}
