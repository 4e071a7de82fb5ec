/**
 * The drain loop of a stream's graph. Producers only queue frames; this loop feeds consumers
 * later, in turns of at most `budgetMs`, and yields to the event loop between turns (setImmediate),
 * so that sources' clock-paced timers run on time however slow a consumer is: a slow consumer
 * shows up as queue depth and drops, never as source jitter.
 *
 * The first turn after the loop was idle runs as a microtask, right after the code that queued
 * the frame (a source's timer, a device frame's arrival) returns: a turn of the event loop in
 * between cost a frame 20–40 µs on its way to the clients (docs/performance-areas.md §End-to-end
 * latency). Only a turn that used up its budget is continued with setImmediate, after the event
 * loop has run; a wake during a turn needs no new turn (the turn runs until nothing is
 * deliverable), so turns never chain as microtasks.
 */
import { performance } from 'node:perf_hooks';

export const DRAIN_BUDGET_MS = 5;

export class DrainScheduler {
  private scheduled = false;
  private inTurn = false;
  private stopped = false;

  /** `step` delivers some frames and returns false when nothing was deliverable. */
  constructor(
    private readonly step: () => boolean,
    private readonly budgetMs: number = DRAIN_BUDGET_MS,
  ) {}

  /** Asks for a drain turn soon (idempotent). */
  wake(): void {
    if (this.scheduled || this.inTurn || this.stopped) return;
    this.scheduled = true;
    queueMicrotask(this.turn);
  }

  stop(): void {
    this.stopped = true;
  }

  private readonly turn = (): void => {
    this.scheduled = false;
    if (this.stopped) return;
    const deadline = performance.now() + this.budgetMs;
    this.inTurn = true;
    try {
      while (this.step()) {
        if (performance.now() >= deadline) {
          // Out of budget: the rest after the event loop has run (timers, sockets, messages).
          this.scheduled = true;
          setImmediate(this.turn);
          return;
        }
      }
    } finally {
      this.inTurn = false;
    }
  };
}
