/**
 * What a child writes on stdout, decoded and handed to the worker in bounded batches. A child
 * that floods cannot make the worker buffer without bound: the decoder refuses oversized messages,
 * at most `maxQueuedFrames` decoded frames wait (the oldest dropped and counted beyond that), and
 * each turn of the event loop delivers at most `batch` messages so that timers and the other nodes
 * of the stream keep running.
 */
import { createDecoder } from '../protocol/codec.js';
import type { ChildMessage, MessageDecoder, ProtocolEncoding } from '../protocol/messages.js';
import { ProtocolError } from '../protocol/messages.js';

/** Non-frame messages (info, error) are few by nature; more than this waiting means a runaway child. */
const MAX_QUEUED_OTHER = 1024;

export interface ChildOutputHandlers {
  onMessage(message: ChildMessage): void;
  onDrop(): void;
  onProtocolError(error: ProtocolError): void;
}

export class ChildOutput {
  private readonly decoder: MessageDecoder;
  private readonly queue: ChildMessage[] = [];
  private queuedFrames = 0;
  private scheduled: NodeJS.Immediate | undefined;
  private failed = false;
  /** Frames dropped because the child wrote faster than the stream could take them. */
  dropped = 0;

  constructor(
    encoding: ProtocolEncoding,
    maxMessageBytes: number,
    private readonly maxQueuedFrames: number,
    private readonly handlers: ChildOutputHandlers,
    private readonly batch = 64,
  ) {
    this.decoder = createDecoder(encoding, maxMessageBytes);
  }

  get queueDepth(): number {
    return this.queuedFrames;
  }

  push(chunk: Buffer): void {
    if (this.failed) return;
    let messages;
    try {
      messages = this.decoder.push(chunk);
    } catch (error) {
      this.failed = true;
      this.handlers.onProtocolError(
        error instanceof ProtocolError ? error : new ProtocolError(String(error)),
      );
      return;
    }
    for (const message of messages) {
      if (message.type === 'config' || message.type === 'signal') {
        this.failed = true;
        this.handlers.onProtocolError(new ProtocolError(`a child may not send '${message.type}' messages`));
        return;
      }
      this.queue.push(message);
      if (this.queue.length > this.maxQueuedFrames + MAX_QUEUED_OTHER) {
        this.failed = true;
        this.handlers.onProtocolError(
          new ProtocolError('the child floods non-frame messages (ready, info, error)'),
        );
        return;
      }
      if (message.type === 'frame') {
        this.queuedFrames += 1;
        if (this.queuedFrames > this.maxQueuedFrames) this.dropOldestFrame();
      }
    }
    this.schedule();
  }

  /** Stops delivering: nothing queued is handed out after this. */
  close(): void {
    this.failed = true;
    this.queue.length = 0;
    this.queuedFrames = 0;
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
  }

  private schedule(): void {
    if (this.scheduled !== undefined || this.queue.length === 0) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = undefined;
      this.deliver();
    });
  }

  private deliver(): void {
    for (let n = 0; n < this.batch && !this.failed; n += 1) {
      const message = this.queue.shift();
      if (message === undefined) break;
      if (message.type === 'frame') this.queuedFrames -= 1;
      this.handlers.onMessage(message);
    }
    this.schedule();
  }

  private dropOldestFrame(): void {
    const index = this.queue.findIndex((message) => message.type === 'frame');
    if (index === -1) return;
    this.queue.splice(index, 1);
    this.queuedFrames -= 1;
    this.dropped += 1;
    this.handlers.onDrop();
  }
}
