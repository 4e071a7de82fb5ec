/**
 * Electrode-scalp contact: what an electrode at a given motor position touches, how hard it
 * presses and what impedance it shows.
 *
 * Each electrode meets the scalp at its own position (seeded, 50..75 steps, the head's shape and
 * hair). Past that point the electrode's spring presses with a force proportional to the depth,
 * and the impedance falls from a few hundred kΩ (first touch through hair) toward a floor of a
 * few kΩ. The floor itself settles over minutes while the electrode stays on the scalp (gel and
 * skin hydrate), and recovers when it is lifted. Off the scalp the input sees air: MΩ.
 */
import { ELECTRODES, type Electrode } from '../../core/electrodes.js';
import type { Random } from './random.js';

/** Contact positions lie in this range of motor steps. */
export const CONTACT_POSITION_RANGE = [50, 75] as const;
/** Spring stiffness past contact: N per step (15 N/mm, 0.1 mm per step). */
export const FORCE_PER_STEP = 0.15;
/** The safe contact force: the motor stalls here (20 steps past contact). */
export const FORCE_LIMIT = 3;
/** Impedance right at first touch, above the floor (Ω). */
const TOUCH_IMPEDANCE = 400_000;
/** Steps of pressing that divide the touch impedance by e. */
const PRESS_LENGTH = 2.5;
/** Air: impedance just off the scalp, and its growth per step of gap (Ω). */
const AIR_IMPEDANCE = 1_500_000;
const AIR_IMPEDANCE_PER_STEP = 250_000;
const AIR_IMPEDANCE_MAX = 40_000_000;
/** Time constants of the floor's settling on the scalp and its recovery off it (ms). */
const SETTLE_TIME_CONSTANT = 180_000;
const DRY_TIME_CONSTANT = 120_000;

export interface ElectrodeContact {
  readonly contactPosition: number;
  /** Floor when first pressed and when fully settled (Ω). */
  readonly floorFresh: number;
  readonly floorSettled: number;
  /** 0 (fresh) .. 1 (settled). */
  settledness: number;
  inContact: boolean;
  updatedAt: number;
}

/** A contact model's state (`ContactModel.snapshot`), as data a thread can be sent. */
export type ContactSnapshot = readonly (readonly [Electrode, ElectrodeContact])[];

export class ContactModel {
  private readonly contacts = new Map<Electrode, ElectrodeContact>();

  /** The model of the seeded `random`, or a copy of the one a snapshot was made of. */
  constructor(random: Random | ContactSnapshot, now: number) {
    if (!('uniform' in random)) {
      for (const [electrode, contact] of random) this.contacts.set(electrode, { ...contact });
      return;
    }
    for (const electrode of ELECTRODES) {
      this.contacts.set(electrode, {
        contactPosition:
          Math.round(random.uniform(CONTACT_POSITION_RANGE[0], CONTACT_POSITION_RANGE[1]) * 10) / 10,
        floorFresh: random.uniform(9_000, 15_000),
        floorSettled: random.uniform(2_000, 5_000),
        settledness: 0,
        inContact: false,
        updatedAt: now,
      });
    }
  }

  /** Its state now: a model made of it answers as this one does, from the same calls. */
  snapshot(): ContactSnapshot {
    return [...this.contacts].map(([electrode, contact]) => [electrode, { ...contact }] as const);
  }

  private contact(electrode: Electrode): ElectrodeContact {
    const contact = this.contacts.get(electrode);
    if (contact === undefined) throw new RangeError(`no contact model for ${electrode}`);
    return contact;
  }

  /** Motor position (steps) at which the electrode touches the scalp. */
  contactPosition(electrode: Electrode): number {
    return this.contact(electrode).contactPosition;
  }

  /**
   * Motor position (steps) at which the contact force reaches `FORCE_LIMIT`: the furthest position
   * whose force, as `force()` computes it, is not above the limit. `contact + 3 / 0.15` alone can
   * round to a position whose force reads 3.000000000000001 N, past the limit by a rounding error;
   * stepping down to the next representable position keeps the invariant exact.
   */
  stallPosition(electrode: Electrode): number {
    const contactPosition = this.contact(electrode).contactPosition;
    let position = contactPosition + FORCE_LIMIT / FORCE_PER_STEP;
    while (this.force(electrode, position) > FORCE_LIMIT) position = nextDown(position);
    return position;
  }

  /** Contact force in N at a motor position. */
  force(electrode: Electrode, position: number): number {
    return Math.max(0, position - this.contact(electrode).contactPosition) * FORCE_PER_STEP;
  }

  /**
   * The true impedance (Ω) at a motor position, at monotonic time `now` (ms). Advances the
   * floor's settling; the contact state of the previous call holds for the interval since then
   * (settling takes minutes, calls come every few ms, so the error is negligible).
   */
  impedance(electrode: Electrode, position: number, now: number): number {
    const contact = this.contact(electrode);
    const elapsed = Math.max(0, now - contact.updatedAt);
    if (contact.inContact) {
      contact.settledness = 1 - (1 - contact.settledness) * Math.exp(-elapsed / SETTLE_TIME_CONSTANT);
    } else {
      contact.settledness *= Math.exp(-elapsed / DRY_TIME_CONSTANT);
    }
    contact.updatedAt = now;
    const depth = position - contact.contactPosition;
    contact.inContact = depth >= 0;
    if (depth < 0) {
      return Math.min(AIR_IMPEDANCE_MAX, AIR_IMPEDANCE + AIR_IMPEDANCE_PER_STEP * -depth);
    }
    const floor = contact.floorFresh + (contact.floorSettled - contact.floorFresh) * contact.settledness;
    return floor + TOUCH_IMPEDANCE * Math.exp(-depth / PRESS_LENGTH);
  }
}

/** The largest double below `x` (x > 0). */
function nextDown(x: number): number {
  const buffer = new DataView(new ArrayBuffer(8));
  buffer.setFloat64(0, x);
  buffer.setBigUint64(0, buffer.getBigUint64(0) - 1n);
  return buffer.getFloat64(0);
}
