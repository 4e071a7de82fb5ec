/**
 * Electrodes held by a running closed-loop operation (optimize, adjust, prepare, apply-pressure,
 * a schedule's optimize): a second operation on any of them is 409 `device_busy` (docs/api.md §Errors: motor locked by a
 * running operation) rather than two loops fighting over one motor.
 */
import { type Electrode, MIXED_CASE } from '../core/electrodes.js';
import { HeadsetdError } from '../errors/catalog.js';

export class MotorLocks {
  private readonly held = new Map<Electrode, string>();

  /** Runs `operation` holding `electrodes`; 409 when one is held already. */
  async with<T>(electrodes: readonly Electrode[], what: string, operation: () => Promise<T>): Promise<T> {
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
  acquire(electrodes: readonly Electrode[], what: string): () => void {
    const busy = electrodes.filter((e) => this.held.has(e));
    if (busy.length > 0) {
      throw new HeadsetdError(
        'device_busy',
        `${busy.map((e) => MIXED_CASE[e]).join(', ')} ${busy.length > 1 ? 'are' : 'is'} held by a running ${this.held.get(busy[0] as Electrode) ?? 'operation'}; wait for it to finish or cancel it (DELETE /system/jobs/{id}).`,
        { electrodes: busy.map((e) => MIXED_CASE[e]) },
      );
    }
    for (const e of electrodes) this.held.set(e, what);
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
}
