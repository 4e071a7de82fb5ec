/**
 * A pipe: the bounded queue between one node's output port and another's input port
 * (docs/architecture.md §Data plane; docs/api.md §Validation: `policy`, `capacity`).
 *
 * Producers push and never wait: a stream's nodes share one thread and a source is paced by the
 * clock, so nothing may block it. Consumers are fed later by the graph's drain loop (see
 * scheduler.ts), so a slow consumer costs queue depth, never source timing.
 *
 * Policies when `capacity` frames are queued:
 * - `drop-oldest` (default): the oldest queued frame is discarded (counted in `framesDropped`) and
 *   the new one queued. Latency stays bounded; a lagging consumer sees `seq` gaps.
 * - `block` (for recorders, which must not lose data): a synchronous in-thread graph cannot block a
 *   producer, so `block` means lossless up to a hard cap. Past `capacity` the pipe is *congested*:
 *   the drain loop stops feeding the pipe's producer when that producer is not a source, so the
 *   backpressure moves upstream to the producer's own input pipes (which apply their own policy).
 *   Sources are never held back: frames keep queueing beyond `capacity` up to `hardCap`
 *   (`capacity × BLOCK_OVERFLOW_FACTOR`, at most `BLOCK_HARD_CAP_MAX`, never below `capacity`). At the
 *   hard cap the new frame is refused: counted in `framesDropped` and in `overflows`, which the
 *   consumer's metrics report as an error, because a `block` pipe losing data is a fault.
 *
 * Either way the first frame the consumer gets after a lost one carries `discontinuity: true` (a
 * copy: the frames of a fan-out are shared), so that a node keeping state across frames (a
 * window, a filter, a recording) never joins the samples on either side of the loss
 * (docs/data-guarantees.md §Gaps and markers).
 */
import type { PipePolicy } from '../../core/stream-model.js';
import type { Frame } from '../../core/frame.js';
import { LatencyWindow } from './metrics.js';

export const BLOCK_OVERFLOW_FACTOR = 16;
export const BLOCK_HARD_CAP_MAX = 65_536;

export type PushOutcome = 'queued' | 'dropped-oldest' | 'refused';

export interface PipeOptions {
  id: string;
  source: string;
  sourcePort: string;
  destination: string;
  targetPort: string;
  policy: PipePolicy;
  capacity: number;
}

/** The hard cap of a `block` pipe of this capacity (see the file header). */
export function blockHardCap(capacity: number): number {
  return Math.max(capacity, Math.min(capacity * BLOCK_OVERFLOW_FACTOR, BLOCK_HARD_CAP_MAX));
}

export class Pipe {
  readonly id: string;
  readonly source: string;
  readonly sourcePort: string;
  readonly destination: string;
  readonly targetPort: string;
  readonly policy: PipePolicy;
  readonly capacity: number;
  /** Most frames ever queued: `capacity` for drop-oldest, the hard cap for block. */
  readonly limit: number;
  /** Frames accepted into the queue. */
  framesSent = 0;
  /** Frames lost to the policy (oldest discarded, or refused at a block pipe's hard cap). */
  framesDropped = 0;
  /** Frames a `block` pipe refused at its hard cap. */
  overflows = 0;
  /** Creation-to-handling latency of the frames this pipe delivered. */
  readonly latency = new LatencyWindow();

  /** Queued frames from `head` on; slots before `head` are cleared so dropped frames can be collected. */
  private items: (Frame | undefined)[] = [];
  private head = 0;
  /** A `block` pipe refused a frame: the next one queued follows a gap. */
  private refusedLast = false;

  constructor(options: PipeOptions) {
    this.id = options.id;
    this.source = options.source;
    this.sourcePort = options.sourcePort;
    this.destination = options.destination;
    this.targetPort = options.targetPort;
    this.policy = options.policy;
    this.capacity = options.capacity;
    this.limit = options.policy === 'block' ? blockHardCap(options.capacity) : options.capacity;
  }

  get depth(): number {
    return this.items.length - this.head;
  }

  /** True when a `block` pipe holds `capacity` frames or more: its producer should be held back. */
  get congested(): boolean {
    return this.policy === 'block' && this.depth >= this.capacity;
  }

  /** Queues a frame (the same object for every pipe of a fan-out: frames are immutable). */
  push(frame: Frame): PushOutcome {
    if (this.depth < this.limit) {
      this.items.push(this.refusedLast ? afterGap(frame) : frame);
      this.refusedLast = false;
      this.framesSent++;
      return 'queued';
    }
    this.framesDropped++;
    if (this.policy === 'block') {
      this.overflows++;
      this.refusedLast = true;
      return 'refused';
    }
    this.items[this.head] = undefined;
    this.head++;
    this.items.push(frame);
    this.framesSent++;
    // The frame now first in the queue follows the one discarded.
    this.items[this.head] = afterGap(this.items[this.head] as Frame);
    this.compact();
    return 'dropped-oldest';
  }

  shift(): Frame | undefined {
    if (this.head >= this.items.length) return undefined;
    const frame = this.items[this.head];
    this.items[this.head] = undefined;
    this.head++;
    this.compact();
    return frame;
  }

  /** Discards every queued frame (a removed pipe drains nothing into the void); returns how many. */
  clear(): number {
    const discarded = this.depth;
    this.items = [];
    this.head = 0;
    return discarded;
  }

  /** Keeps the array from growing without bound: O(1) amortised per frame. */
  private compact(): void {
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}

/** `frame` as the first after lost frames: itself when it says so already, else a marked copy. */
function afterGap(frame: Frame): Frame {
  return frame.discontinuity === true ? frame : Object.freeze({ ...frame, discontinuity: true });
}
