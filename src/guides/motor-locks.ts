/**
 * Electrodes held by a running closed-loop operation (optimize, adjust, prepare, apply-pressure,
 * a schedule's optimize): a second operation on any of them is 409 `device_busy` (docs/api.md §Errors: motor locked by a
 * running operation) rather than two loops fighting over one motor.
 */
import { type Electrode, MIXED_CASE } from '../core/electrodes.js';
import { HeadsetdError } from '../core/errors.js';

/** What holds electrodes: the operation, and its job once the job is started. */
export interface MotorHolder {
  readonly what: string;
  jobId?: string;
}

export class MotorLocks {
  private readonly held = new Map<Electrode, MotorHolder>();

  /** Runs `operation` holding `electrodes`; 409 when one is held already. */
  async with<T>(
    electrodes: readonly Electrode[],
    what: string | MotorHolder,
    operation: () => Promise<T>,
  ): Promise<T> {
    const release = this.acquire(electrodes, what);
    try {
      return await operation();
    } finally {
      release();
    }
  }

  /**
   * Holds `electrodes` now (409 when one is held already) until the returned function is called:
   * for an operation that outlives the request that started it (a job).
   */
  acquire(electrodes: readonly Electrode[], what: string | MotorHolder): () => void {
    const busy = electrodes.filter((e) => this.held.has(e));
    if (busy.length > 0) throw this.busyError(busy);
    const holder = typeof what === 'string' ? { what } : what;
    for (const e of electrodes) this.held.set(e, holder);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const e of electrodes) this.held.delete(e);
    };
  }

  isHeld(electrode: Electrode): boolean {
    return this.held.has(electrode);
  }

  /**
   * The 409 for electrodes already held: it names the operation and its job, and says how to
   * wait for it or cancel it.
   */
  busyError(electrodes: readonly Electrode[]): HeadsetdError {
    const holder = electrodes.map((e) => this.held.get(e)).find((h) => h !== undefined);
    const names = electrodes.map((e) => MIXED_CASE[e]);
    const job = holder?.jobId;
    const what = holder === undefined ? 'operation' : holder.what;
    const advice =
      job === undefined
        ? 'wait for it to finish or cancel it (GET /system/jobs lists the jobs, DELETE /system/jobs/{id} cancels one)'
        : `wait for it to finish (GET /system/jobs/${job}) or cancel it (DELETE /system/jobs/${job})`;
    return new HeadsetdError(
      'device_busy',
      `${names.join(', ')} ${names.length > 1 ? 'are' : 'is'} held by a running ${what}${job === undefined ? '' : ` (job ${job})`}; ${advice}.`,
      {
        electrodes: names,
        heldBy: { operation: what, ...(job === undefined ? {} : { jobId: job }) },
      },
    );
  }
}
