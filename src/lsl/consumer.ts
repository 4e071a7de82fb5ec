/**
 * One consumer of an outlet: its data connection, its own bounded queue of encoded samples, and
 * the writes to its socket. When the queue is full the oldest samples go (as liblsl's consumer
 * queue does), so a slow consumer loses its own samples and never stalls the stream or the others;
 * the socket itself holds at most {@link SOCKET_HIGH_WATER} bytes not yet sent.
 */
import type { Socket } from 'node:net';

export const SOCKET_HIGH_WATER = 256 * 1024;

export class Consumer {
  /** Encoded samples waiting for the socket, oldest first (`head` is the first still queued). */
  private queue: Buffer[] = [];
  private head = 0;
  dropped = 0;
  closed = false;

  constructor(
    readonly socket: Socket,
    /** Most samples queued; beyond it the oldest are dropped. */
    private readonly capacity: number,
    /** Most samples in one write (0: no limit). */
    private readonly chunkLength: number,
    readonly protocol: 100 | 110,
  ) {
    socket.on('drain', () => {
      this.flush();
    });
  }

  get queued(): number {
    return this.queue.length - this.head;
  }

  /** Queues a frame's samples and writes what the socket takes. */
  push(samples: readonly Buffer[]): void {
    if (this.closed) return;
    for (const sample of samples) this.queue.push(sample);
    const excess = this.queued - this.capacity;
    if (excess > 0) {
      this.head += excess;
      this.dropped += excess;
    }
    this.flush();
  }

  private flush(): void {
    while (!this.closed && this.queued > 0 && this.socket.writableLength < SOCKET_HIGH_WATER) {
      const count = this.chunkLength > 0 ? Math.min(this.chunkLength, this.queued) : this.queued;
      const parts = this.queue.slice(this.head, this.head + count);
      this.head += count;
      this.socket.write(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts));
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  close(): void {
    this.closed = true;
    this.queue = [];
    this.head = 0;
    this.socket.destroy();
  }
}
