/**
 * What a child writes on stdout, decoded and handed to the worker in bounded batches. A child
 * that floods cannot make the worker buffer without bound: the decoder refuses oversized messages,
 * at most `maxQueuedFrames` decoded frames wait (the oldest dropped and counted beyond that), and
 * each turn of the event loop delivers at most `batch` messages (the first batch at once, the
 * rest on later turns) so that timers and the other nodes of the stream keep running.
 */
import { createDecoder } from '../../../core/protocol/codec.js';
import type {
  ChildMessage,
  MessageDecoder,
  ProtocolEncoding,
  ProtocolMessage,
} from '../../../core/protocol/messages.js';
import { ProtocolError } from '../../../core/protocol/messages.js';

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
  /** No more input is decoded: the decoder met a fault, or the output was closed. */
  private failed = false;
  private fault: ProtocolError | undefined;
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
    let messages: ProtocolMessage[];
    let fault: ProtocolError | undefined;
    try {
      messages = this.decoder.push(chunk);
    } catch (error) {
      fault = error instanceof ProtocolError ? error : new ProtocolError(String(error));
      // What the child sent correctly before the fault still counts (a `ready` just before garbage).
      messages = fault.decoded;
    }
    for (const message of messages) {
      if (message.type === 'config' || message.type === 'signal') {
        fault = new ProtocolError(`a child may not send '${message.type}' messages`);
        break;
      }
      this.queue.push(message);
      if (this.queue.length > this.maxQueuedFrames + MAX_QUEUED_OTHER) {
        fault = new ProtocolError('the child floods non-frame messages (ready, info, error)');
        break;
      }
      if (message.type === 'frame') {
        this.queuedFrames += 1;
        if (this.queuedFrames > this.maxQueuedFrames) this.dropOldestFrame();
      }
    }
    if (fault !== undefined) {
      // Reported after the messages before it have been delivered, in order.
      this.fault = fault;
      this.failed = true;
    }
    // Delivered now, in the task that read them, unless a backlog is already waiting for its turn:
    // a frame that arrives alone is not held for another turn of the event loop.
    if (this.scheduled === undefined) this.deliver();
  }

  /** Stops delivering: nothing queued is handed out after this. */
  close(): void {
    this.failed = true;
    this.fault = undefined;
    this.queue.length = 0;
    this.queuedFrames = 0;
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
  }

  private schedule(): void {
    if (this.scheduled !== undefined || (this.queue.length === 0 && this.fault === undefined)) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = undefined;
      this.deliver();
    });
  }

  private deliver(): void {
    for (let n = 0; n < this.batch; n += 1) {
      const message = this.queue.shift();
      if (message === undefined) break;
      if (message.type === 'frame') this.queuedFrames -= 1;
      this.handlers.onMessage(message);
    }
    if (this.queue.length === 0 && this.fault !== undefined) {
      const fault = this.fault;
      this.fault = undefined;
      this.handlers.onProtocolError(fault);
      return;
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
