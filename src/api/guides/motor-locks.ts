/**
 * Electrodes held by a running closed-loop operation (optimize, adjust, prepare, apply-pressure,
 * a schedule's optimize): a second operation on any of them is 409 `device_busy` (docs/api.md
 * §Errors: motor locked by a running operation) rather than two loops fighting over one motor.
 */
import { type Electrode, MIXED_CASE } from '../../device/electrodes.js';
import { HeadsetdError } from '../../errors.js';

export class MotorLocks {
  private readonly held = new Map<Electrode, string>();

  /** Runs `operation` holding `electrodes`; 409 when one is held already. */
  async with<T>(electrodes: readonly Electrode[], what: string, operation: () => Promise<T>): Promise<T> {
    const busy = electrodes.filter((e) => this.held.has(e));
    if (busy.length > 0) {
      throw new HeadsetdError(
        'device_busy',
        `${busy.map((e) => MIXED_CASE[e]).join(', ')} ${busy.length > 1 ? 'are' : 'is'} held by a running ${this.held.get(busy[0] as Electrode) ?? 'operation'}; wait for it to finish.`,
        { electrodes: busy.map((e) => MIXED_CASE[e]) },
      );
    }
    for (const e of electrodes) this.held.set(e, what);
    try {
      return await operation();
    } finally {
      for (const e of electrodes) this.held.delete(e);
    }
  }

  isHeld(electrode: Electrode): boolean {
    return this.held.has(electrode);
  }
}
