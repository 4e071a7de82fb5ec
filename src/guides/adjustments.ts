/**
 * POST /electrodes/impedance/optimize and POST /electrodes/adjust as use cases: the closed loops of
 * optimizer.ts run in the order and combination each request means. Optimize brings priority
 * electrodes under the target first, alone, then the others; adjust presses (increase_pressure),
 * relieves (decrease_pressure) or lifts and seats again (reseat). Each answers every electrode's
 * result in kΩ, in the headset's electrode order.
 */
import { ELECTRODES, type Electrode } from '../core/electrodes.js';
import type { Headset } from '../device/headset.js';
import { toKiloohms } from './headmap/impedance-levels.js';
import {
  type ElectrodeResult,
  type LoopOptions,
  optimizeElectrodes,
  relieveElectrodes,
  retractBy,
} from './optimizer.js';
import { requirePart } from '../device/capabilities.js';

/** Steps a reseat lifts an electrode before approaching the scalp again. */
export const RESEAT_LIFT_STEPS = 10;

export type AdjustAction = 'increase_pressure' | 'decrease_pressure' | 'reseat';

/**
 * Optimizes `priority` first, alone, so that they get the meter and the settle time to themselves,
 * then the rest of `all`; answers the results of `all` in the headset's electrode order.
 */
export async function optimizeInOrder(
  device: Headset,
  priority: readonly Electrode[],
  all: readonly Electrode[],
  options: LoopOptions,
): Promise<Map<Electrode, ElectrodeResult>> {
  const first =
    priority.length > 0
      ? await optimizeElectrodes(device, priority, options)
      : new Map<Electrode, ElectrodeResult>();
  const rest = all.filter((e) => !first.has(e));
  const second =
    rest.length > 0 ? await optimizeElectrodes(device, rest, options) : new Map<Electrode, ElectrodeResult>();
  return new Map(
    ELECTRODES.filter((e) => all.includes(e)).map((e) => [
      e,
      (first.get(e) ?? second.get(e)) as ElectrodeResult,
    ]),
  );
}

/** Presses, relieves or reseats `electrodes` toward the target. */
export async function adjustElectrodes(
  device: Headset,
  electrodes: readonly Electrode[],
  action: AdjustAction,
  options: LoopOptions,
): Promise<Map<Electrode, ElectrodeResult>> {
  switch (action) {
    case 'decrease_pressure':
      return relieveElectrodes(device, electrodes, options);
    case 'reseat': {
      const before = await requirePart(device, 'impedance').measure(
        electrodes,
        options.signal === undefined ? {} : { signal: options.signal },
      );
      await retractBy(device, electrodes, RESEAT_LIFT_STEPS, options.signal);
      const results = await optimizeElectrodes(device, electrodes, options);
      // `before` is the value before the lift, not the air reading after it.
      for (const [e, r] of results) r.before = toKiloohms(before[e] ?? Number.POSITIVE_INFINITY);
      return results;
    }
    case 'increase_pressure':
      return optimizeElectrodes(device, electrodes, options);
  }
}
