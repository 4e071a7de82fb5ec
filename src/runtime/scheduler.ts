/**
 * The drain loop of a stream's graph. Producers only queue frames; this loop feeds consumers
 * later, in turns of at most `budgetMs`, and yields to the event loop between turns (setImmediate),
 * so that sources' clock-paced timers run on time however slow a consumer is: a slow consumer
 * shows up as queue depth and drops, never as source jitter.
 */
import { performance } from 'node:perf_hooks';

export const DRAIN_BUDGET_MS = 5;

export class DrainScheduler {
  private scheduled = false;
  private stopped = false;

  /** `step` delivers some frames and returns false when nothing was deliverable. */
  constructor(
    private readonly step: () => boolean,
    private readonly budgetMs: number = DRAIN_BUDGET_MS,
  ) {}

  /** Asks for a drain turn soon (idempotent). */
  wake(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(this.turn);
  }

  stop(): void {
    this.stopped = true;
  }

  private readonly turn = (): void => {
    this.scheduled = false;
    if (this.stopped) return;
    const deadline = performance.now() + this.budgetMs;
    while (this.step()) {
      if (performance.now() >= deadline) {
        this.wake();
        return;
      }
    }
  };
}
