/**
 * The closed-loop electrode operations (prepare, optimize, adjust, apply-pressure) run as jobs of
 * the device's registry (src/platform/jobs/jobs.ts): the operation goes on holding its electrodes while
 * the request that started it has been answered.
 *
 * Progress is reported per electrode (position, motor state, latest impedance, and once it has
 * left the loop `done` with the loop's `reason`), after every measurement round and every half
 * second of device time while motors move. Cancelling stops the job's moving motors where they
 * are; so does a failure.
 */
import { requirePart, requireParts } from '../device/capabilities.js';
import type { MotorHolder } from './motor-locks.js';
import type { TimerHandle } from '../device/clock.js';
import { type Electrode, MIXED_CASE } from '../core/electrodes.js';
import { type Headset, MOTOR_STATE, type MotorCommand } from '../device/headset.js';
import type { Job } from '../platform/jobs/jobs.js';
import type { GuidesContext } from './context.js';
import type { LoopHooks } from './optimizer.js';
import type { Static } from 'typebox';
import type { ElectrodeJobProgressShape, ElectrodeProgressShape } from '../platform/schemas/jobs.js';

/** Device ms between progress reports while motors move. */
export const PROGRESS_TICK_MS = 500;

/**
 * One electrode's progress, and the whole progress of an operation: the shapes the API documents
 * for a job's `progress` (platform/schemas/jobs.ts), so what is reported cannot drift from them.
 */
export type ElectrodeProgress = Static<typeof ElectrodeProgressShape>;
export type ElectrodeJobProgress = Static<typeof ElectrodeJobProgressShape>;

/** Keeps the per-electrode account of one operation and reports it. */
export class ElectrodeProgressTracker {
  private readonly entries = new Map<Electrode, ElectrodeProgress>();

  constructor(
    private readonly device: Headset,
    private readonly electrodes: readonly Electrode[],
    private readonly report: (progress: ElectrodeJobProgress) => void,
  ) {
    for (const e of electrodes) this.entries.set(e, { done: false, position: 0, state: 0, impedance: null });
  }

  /** The optimizer's `onRound`: results so far and the electrodes that have left the loop. */
  readonly onRound: NonNullable<LoopHooks['onRound']> = (results, done) => {
    for (const [e, r] of results) {
      const entry = this.entries.get(e);
      if (entry === undefined) continue;
      entry.impedance = r.after;
      entry.attempts = r.attempts;
      entry.done = done.has(e);
      if (entry.done) entry.reason = r.reason;
      else delete entry.reason;
    }
    this.emit();
  };

  /** Marks electrodes done (an operation without rounds: a plain move). */
  finish(electrodes: readonly Electrode[] = this.electrodes): void {
    for (const e of electrodes) {
      const entry = this.entries.get(e);
      if (entry !== undefined) entry.done = true;
    }
    this.emit();
  }

  snapshot(): ElectrodeJobProgress {
    const positions = requirePart(this.device, 'motors').positions(this.electrodes);
    const states = requirePart(this.device, 'motors').states(this.electrodes);
    const electrodes: Record<string, ElectrodeProgress> = {};
    let completed = 0;
    for (const [e, entry] of this.entries) {
      entry.position = positions[e] ?? entry.position;
      entry.state = states[e] ?? entry.state;
      if (entry.done) completed++;
      electrodes[MIXED_CASE[e]] = { ...entry };
    }
    return { total: this.electrodes.length, completed, electrodes };
  }

  emit(): void {
    this.report(this.snapshot());
  }
}

/** Stops the electrodes' motors that are moving (a cancelled or failed operation). */
async function stopMoving(device: Headset, electrodes: readonly Electrode[]): Promise<void> {
  const states = requirePart(device, 'motors').states(electrodes);
  const commands: MotorCommand[] = electrodes
    .filter((e) => states[e] === MOTOR_STATE.moving)
    .map((e) => ({ electrode: e, movement: 'STOP' }));
  if (commands.length > 0) await requirePart(device, 'motors').move(commands);
}

export interface ElectrodeJobSpec<R extends object> {
  /** The job's `operation`, e.g. `electrodes.prepare`. */
  readonly operation: string;
  /** What holds the electrodes, for the 409 of a second operation (`prepare seat`). */
  readonly holder: string;
  readonly electrodes: readonly Electrode[];
  /** The operation: its answer's fields (without `success`). */
  run(hooks: { signal: AbortSignal; progress: ElectrodeProgressTracker }): Promise<R>;
}

/** What an electrode operation needs: the device, its motor locks and its job registry. */
export type ElectrodeJobContext = Pick<GuidesContext, 'device' | 'locks' | 'jobs'>;

/**
 * Starts an electrode operation as a job of the device's registry, holding its electrodes from now
 * on (409 when one is held): progress every round and every PROGRESS_TICK_MS of device time while
 * motors move; a cancelled or failed operation stops its moving motors where they are.
 */
export function startElectrodeJob<R extends object>(
  context: ElectrodeJobContext,
  spec: ElectrodeJobSpec<R>,
): Job<ElectrodeJobProgress, R> {
  const { device } = context;
  // Before anything is held: every electrode operation moves motors.
  requireParts(device, 'motors');
  const holder: MotorHolder = { what: spec.holder };
  const release = context.locks.acquire(spec.electrodes, holder);
  const initial: ElectrodeJobProgress = new ElectrodeProgressTracker(
    device,
    spec.electrodes,
    () => undefined,
  ).snapshot();
  const job = context.jobs.start(spec.operation, initial, async ({ signal, progress }) => {
    const tracker = new ElectrodeProgressTracker(device, spec.electrodes, progress);
    let ticker: TimerHandle | undefined;
    const tick = (): void => {
      ticker = device.clock.setTimeout(() => {
        if (device.status().motors.moving.some((e) => spec.electrodes.includes(e))) tracker.emit();
        tick();
      }, PROGRESS_TICK_MS);
    };
    tick();
    try {
      const result = await spec.run({ signal, progress: tracker });
      tracker.finish();
      return result;
    } catch (error) {
      await stopMoving(device, spec.electrodes);
      throw error;
    } finally {
      if (ticker !== undefined) device.clock.clearTimeout(ticker);
      release();
    }
  });
  // Named by the 409 of a second operation on these electrodes.
  holder.jobId = job.id;
  return job;
}
