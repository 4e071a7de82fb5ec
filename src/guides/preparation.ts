/**
 * POST /electrodes/prepare as a use case: retract or release electrodes by a number of steps, or
 * seat them (to the scalp, then a few steps further, measuring as they go), answering each
 * electrode's position, motor state and (seat) impedance in kΩ. It runs as an electrode job
 * (electrode-jobs.ts): `signal` cancels it, `progress` reports each round.
 */
import { type Electrode, mixedCaseMap } from '../core/electrodes.js';
import type { Headset } from '../device/headset.js';
import type { ElectrodeProgressTracker } from './electrode-jobs.js';
import { releaseBy, retractBy, seatElectrodes } from './optimizer.js';
import { STRATEGIES } from './strategies.js';
import { requirePart } from '../device/capabilities.js';

export type PrepareAction = 'retract' | 'release' | 'seat';

/** Steps pressed past contact by `seat` when `amount` is omitted. */
export const DEFAULT_SEAT_PRESS = 6;
/** Steps of retract and release when `amount` is omitted: to the end. */
export const DEFAULT_TRAVEL = 100;

export interface PreparedElectrode {
  position: number;
  state: number;
  /** kΩ (seat). */
  impedance?: number;
}

export async function prepareElectrodes(
  device: Headset,
  electrodes: readonly Electrode[],
  action: PrepareAction,
  amount: number | undefined,
  hooks: { signal: AbortSignal; progress: ElectrodeProgressTracker },
): Promise<{ action: PrepareAction; electrodes: Record<string, PreparedElectrode> }> {
  const { signal, progress } = hooks;
  let impedance: Map<Electrode, number> | undefined;
  if (action === 'retract') await retractBy(device, electrodes, amount ?? DEFAULT_TRAVEL, signal);
  else if (action === 'release') await releaseBy(device, electrodes, amount ?? DEFAULT_TRAVEL, signal);
  else {
    const results = await seatElectrodes(
      device,
      electrodes,
      () => amount ?? DEFAULT_SEAT_PRESS,
      STRATEGIES.research,
      { signal, onRound: progress.onRound },
    );
    impedance = new Map([...results].map(([e, r]) => [e, r.after]));
  }
  const positions = requirePart(device, 'motors').positions(electrodes);
  const states = requirePart(device, 'motors').states(electrodes);
  const out: Partial<Record<Electrode, PreparedElectrode>> = {};
  for (const e of electrodes) {
    const kohms = impedance?.get(e);
    out[e] = {
      position: positions[e] ?? 0,
      state: states[e] ?? 0,
      ...(kohms === undefined ? {} : { impedance: kohms }),
    };
  }
  return { action, electrodes: mixedCaseMap(out) };
}
