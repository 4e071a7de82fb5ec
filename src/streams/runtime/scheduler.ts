/**
 * The drain loop of a stream's graph. Producers only queue frames; this loop feeds consumers in
 * turns of at most `budgetMs`, and yields to the event loop between turns (setImmediate), so that
 * sources' clock-paced timers run on time however slow a consumer is: a slow consumer shows up as
 * queue depth and drops, never as source jitter.
 *
 * A frame a source emits outside any turn is delivered at once (`deliverNow`): the turn runs inside
 * the source's own callback (its timer, a device frame's arrival), before the source goes on. As a
 * microtask it ran only after Node's timers had done their bookkeeping and the source had set its
 * next wake-up, 0.03 ms later on its way to the clients (docs/performance.md §A frame's time stamp
 * and its latency); a turn of the event loop in between had cost 20–40 µs more. Any other wake
 * (a consumer ready again, an edit) runs the turn as a microtask, after the code that woke it has
 * finished. The turns run at once in one turn of the event loop share one budget, so a source
 * emitting a burst in one callback cannot hold the thread longer than a woken turn could. Only a
 * turn that used up its budget is continued with setImmediate, after the event
 * loop has run; a wake during a turn needs no new turn (the turn runs until nothing is
 * deliverable), so turns never nest nor chain as microtasks.
 */
import { performance } from 'node:perf_hooks';

export const DRAIN_BUDGET_MS = 5;

export class DrainScheduler {
  private scheduled = false;
  private inTurn = false;
  private stopped = false;
  /** Time the turns run at once (`deliverNow`) have taken since the event loop last turned. */
  private spentAtOnce = 0;
  /** Whether the reset of `spentAtOnce` waits for the event loop's turn. */
  private spendingAtOnce = false;

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

  /**
   * Runs a turn now, unless one is running (it delivers what was just queued) or is already
   * waiting to run (a turn out of budget yields to the event loop first). The turns run at once in
   * one turn of the event loop share one budget: a source that emits a burst into a slow consumer
   * gets its frames delivered until the budget is spent, and the rest wait in the pipes (bounded,
   * dropped by their policy) for the next turn, as a woken turn's would.
   */
  deliverNow(): void {
    if (this.scheduled || this.inTurn || this.stopped) return;
    if (this.spentAtOnce >= this.budgetMs) {
      this.yieldTurn();
      return;
    }
    if (!this.spendingAtOnce) {
      // Runs once the event loop has turned (its check phase): the budget is the next turn's again.
      this.spendingAtOnce = true;
      setImmediate(this.newLoopTurn);
    }
    const started = performance.now();
    this.run(started + this.budgetMs - this.spentAtOnce);
    this.spentAtOnce += performance.now() - started;
  }

  stop(): void {
    this.stopped = true;
  }

  private readonly turn = (): void => {
    this.scheduled = false;
    if (this.stopped) return;
    this.run(performance.now() + this.budgetMs);
  };

  /** Out of budget: the rest after the event loop has run (timers, sockets, messages). */
  private yieldTurn(): void {
    this.scheduled = true;
    setImmediate(this.turn);
  }

  private readonly newLoopTurn = (): void => {
    this.spendingAtOnce = false;
    this.spentAtOnce = 0;
  };

  /** Delivers until nothing is deliverable, or until `deadline`: then the rest after the event loop has run. */
  private run(deadline: number): void {
    this.inTurn = true;
    try {
      while (this.step()) {
        if (performance.now() >= deadline) {
          this.yieldTurn();
          return;
        }
      }
    } finally {
      this.inTurn = false;
    }
  }
}
