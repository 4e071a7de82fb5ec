/**
 * The closed loop on the motors behind /electrodes/impedance/optimize, /electrodes/adjust,
 * /electrodes/prepare and /motors/apply-pressure. It works in rounds over all its electrodes at
 * once: one impedance measurement of those still in play, one batch of moves, a wait for the
 * motors and the profile's settle time. Rounds (not per-electrode loops) keep the impedance meter,
 * which serves one measurement at a time, from becoming the bottleneck.
 *
 * Every loop takes a {@link LoopHooks}: `signal` aborts it between or during its steps (the
 * measurement in flight is aborted, waits end at once; stopping the motors is the caller's part),
 * and `onRound` reports the electrodes' results after each measurement, for a job's progress.
 */
import type { Electrode } from '../core/electrodes.js';
import { type Headset, MOTOR_MAX_POSITION, MOTOR_STATE, type MotorCommand } from '../device/headset.js';
import { toKiloohms } from './headmap/impedance-levels.js';
import { CONTACT_KOHMS, type StrategyProfile } from './strategies.js';
import { errorMessage } from '../core/error-message.js';
import type { Static } from 'typebox';
import type { ElectrodeEndReason } from '../platform/schemas/jobs.js';
import { requirePart } from '../device/capabilities.js';

export interface ElectrodeResult {
  /** kΩ at the first measurement. */
  before: number;
  /** kΩ at the last measurement. */
  after: number;
  /** Press (or relief) moves made after contact. */
  attempts: number;
  reached: boolean;
  /** Steps at the end. */
  position: number;
  /** Why the loop ended for this electrode (the reasons a job's progress documents). */
  reason: Static<typeof ElectrodeEndReason>;
}

export interface LoopHooks {
  /** Aborts the loop: it rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined;
  /** After each measurement: every electrode's result so far, and those that have left the loop. */
  readonly onRound?:
    | ((results: ReadonlyMap<Electrode, ElectrodeResult>, done: ReadonlySet<Electrode>) => void)
    | undefined;
}

export interface LoopOptions extends LoopHooks {
  readonly targetKohms: number;
  readonly maxAttempts: number;
  readonly profile: StrategyProfile;
}

/** `promise`, or the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(errorMessage(error)));
      },
    );
  });
}

/** The contact settles on the device's time. */
function settle(device: Headset, ms: number, signal: AbortSignal | undefined): Promise<void> {
  return abortable(
    new Promise<void>((resolve) => {
      device.clock.setTimeout(resolve, ms);
    }),
    signal,
  );
}

async function measure(
  device: Headset,
  electrodes: readonly Electrode[],
  signal?: AbortSignal,
): Promise<Map<Electrode, number>> {
  const ohms = await requirePart(device, 'impedance').measure(electrodes, {
    ...(signal === undefined ? {} : { signal }),
    holder: 'an electrode optimisation job; GET /system/jobs lists it, DELETE /system/jobs/{id} cancels it',
  });
  return new Map(electrodes.map((e) => [e, toKiloohms(ohms[e] ?? Number.POSITIVE_INFINITY)]));
}

async function moveAll(
  device: Headset,
  commands: MotorCommand[],
  settleMs: number,
  signal?: AbortSignal,
): Promise<void> {
  if (commands.length === 0) return;
  signal?.throwIfAborted();
  await requirePart(device, 'motors').move(commands);
  await abortable(requirePart(device, 'motors').waitUntilComplete(commands.map((c) => c.electrode)), signal);
  if (settleMs > 0) await settle(device, settleMs, signal);
}

function positionOf(device: Headset, electrode: Electrode): number {
  return requirePart(device, 'motors').positions([electrode])[electrode] ?? 0;
}

function stateOf(device: Headset, electrode: Electrode): number {
  return requirePart(device, 'motors').states([electrode])[electrode] ?? 0;
}

interface Track {
  result: ElectrodeResult;
  /** Position where contact was first seen; undefined while approaching. */
  contactAt: number | undefined;
  done: boolean;
}

/**
 * Brings each electrode under `targetKohms`: approaches the scalp in `approachStep` moves while it
 * reads as air, then presses `stepSize` per attempt, within `pressureLimit` steps past contact and
 * `maxAttempts` presses.
 */
export async function optimizeElectrodes(
  device: Headset,
  electrodes: readonly Electrode[],
  options: LoopOptions,
): Promise<Map<Electrode, ElectrodeResult>> {
  const { targetKohms, maxAttempts, profile, signal } = options;
  const tracks = new Map<Electrode, Track>();
  const report = (): void => {
    options.onRound?.(
      new Map([...tracks].map(([e, t]) => [e, t.result])),
      new Set([...tracks].filter(([, t]) => t.done).map(([e]) => e)),
    );
  };
  const first = await measure(device, electrodes, signal);
  for (const e of electrodes) {
    const value = first.get(e) ?? Number.POSITIVE_INFINITY;
    const position = positionOf(device, e);
    tracks.set(e, {
      result: {
        before: value,
        after: value,
        attempts: 0,
        reached: false,
        position,
        reason: 'attempts_spent',
      },
      contactAt: value < CONTACT_KOHMS ? position : undefined,
      done: false,
    });
  }
  for (;;) {
    const commands: MotorCommand[] = [];
    for (const [e, track] of tracks) {
      if (track.done) continue;
      const r = track.result;
      r.position = positionOf(device, e);
      const state = stateOf(device, e);
      const end = (reason: ElectrodeResult['reason']): void => {
        track.done = true;
        r.reason = reason;
      };
      if (r.after <= targetKohms) {
        r.reached = true;
        end('target_reached');
      } else if (state === MOTOR_STATE.fault) end('fault');
      else if (state === MOTOR_STATE.stalled) end('stalled');
      else if (track.contactAt === undefined) {
        if (r.position >= MOTOR_MAX_POSITION) end('no_contact');
        else
          commands.push({
            electrode: e,
            movement: 'RELEASE',
            displacement: Math.min(profile.approachStep, MOTOR_MAX_POSITION - r.position),
          });
      } else if (r.attempts >= maxAttempts) end('attempts_spent');
      else {
        const room = track.contactAt + profile.pressureLimit - r.position;
        const step = Math.min(profile.stepSize, room, MOTOR_MAX_POSITION - r.position);
        if (step <= 0) end('pressure_limit');
        else {
          r.attempts++;
          commands.push({ electrode: e, movement: 'RELEASE', displacement: step });
        }
      }
    }
    report();
    if (commands.length === 0) break;
    await moveAll(device, commands, profile.settleMs, signal);
    const moved = commands.map((c) => c.electrode as Electrode);
    const values = await measure(device, moved, signal);
    for (const e of moved) {
      const track = tracks.get(e);
      if (track === undefined) continue;
      track.result.after = values.get(e) ?? track.result.after;
      track.result.position = positionOf(device, e);
      if (track.contactAt === undefined && track.result.after < CONTACT_KOHMS)
        track.contactAt = track.result.position;
    }
  }
  return new Map([...tracks].map(([e, t]) => [e, t.result]));
}

/**
 * Lightens the pressure while the impedance stays under `targetKohms`: retracts `stepSize` per
 * attempt; the first step that lifts the value over the target is undone and ends the loop.
 */
export async function relieveElectrodes(
  device: Headset,
  electrodes: readonly Electrode[],
  options: LoopOptions,
): Promise<Map<Electrode, ElectrodeResult>> {
  const { targetKohms, maxAttempts, profile, signal } = options;
  const first = await measure(device, electrodes, signal);
  const results = new Map<Electrode, ElectrodeResult>();
  for (const e of electrodes) {
    const value = first.get(e) ?? Number.POSITIVE_INFINITY;
    results.set(e, {
      before: value,
      after: value,
      attempts: 0,
      reached: value <= targetKohms,
      position: positionOf(device, e),
      reason: 'attempts_spent',
    });
  }
  let active = electrodes.filter((e) => results.get(e)?.reached === true);
  for (const e of electrodes)
    if (!active.includes(e)) (results.get(e) as ElectrodeResult).reason = 'attempts_spent';
  while (active.length > 0) {
    options.onRound?.(results, new Set(electrodes.filter((e) => !active.includes(e))));
    const commands: MotorCommand[] = [];
    for (const e of active) {
      const r = results.get(e) as ElectrodeResult;
      if (r.attempts >= maxAttempts || r.position <= 0) continue;
      r.attempts++;
      commands.push({
        electrode: e,
        movement: 'RETRACT',
        displacement: Math.min(profile.stepSize, r.position),
      });
    }
    if (commands.length === 0) break;
    await moveAll(device, commands, profile.settleMs, signal);
    const moved = commands.map((c) => c.electrode as Electrode);
    const values = await measure(device, moved, signal);
    const undo: MotorCommand[] = [];
    for (const e of moved) {
      const r = results.get(e) as ElectrodeResult;
      r.after = values.get(e) ?? r.after;
      if (r.after > targetKohms)
        undo.push({
          electrode: e,
          movement: 'RELEASE',
          displacement: Math.min(profile.stepSize, MOTOR_MAX_POSITION - positionOf(device, e)),
        });
    }
    await moveAll(device, undo, profile.settleMs, signal);
    if (undo.length > 0) {
      const back = await measure(
        device,
        undo.map((c) => c.electrode as Electrode),
        signal,
      );
      for (const [e, v] of back) (results.get(e) as ElectrodeResult).after = v;
    }
    active = moved.filter((e) => !undo.some((c) => c.electrode === e));
    for (const e of moved) (results.get(e) as ElectrodeResult).position = positionOf(device, e);
  }
  for (const r of results.values()) {
    r.reached = r.after <= targetKohms;
    r.reason = r.reached ? 'target_reached' : 'attempts_spent';
  }
  options.onRound?.(results, new Set(electrodes));
  return results;
}

/** Retracts by `steps` (at least to MIN) and waits for the motors. */
export async function retractBy(
  device: Headset,
  electrodes: readonly Electrode[],
  steps: number,
  signal?: AbortSignal,
): Promise<void> {
  const commands: MotorCommand[] = electrodes
    .map((e) => ({ electrode: e, movement: 'RETRACT', displacement: Math.min(steps, positionOf(device, e)) }))
    .filter((c) => c.displacement > 0);
  await moveAll(device, commands, 0, signal);
}

/** Releases by `steps` (at most to MAX) and waits for the motors. */
export async function releaseBy(
  device: Headset,
  electrodes: readonly Electrode[],
  steps: number,
  signal?: AbortSignal,
): Promise<void> {
  const commands: MotorCommand[] = electrodes
    .map((e) => ({
      electrode: e,
      movement: 'RELEASE',
      displacement: Math.min(steps, MOTOR_MAX_POSITION - positionOf(device, e)),
    }))
    .filter((c) => c.displacement > 0);
  await moveAll(device, commands, 0, signal);
}

/**
 * Seats electrodes: approaches each until it touches the scalp, then presses `press(e)` steps
 * further (within the device's force limit). Answers contact positions (undefined: none found).
 */
export async function seatElectrodes(
  device: Headset,
  electrodes: readonly Electrode[],
  press: (electrode: Electrode) => number,
  profile: StrategyProfile,
  hooks: LoopHooks = {},
): Promise<Map<Electrode, ElectrodeResult>> {
  const { signal } = hooks;
  // Approach only: a target no electrode can meet below contact, no press attempts. Its rounds
  // report no electrode as done: the press below is still to come.
  const approached = await optimizeElectrodes(device, electrodes, {
    targetKohms: CONTACT_KOHMS - 1,
    maxAttempts: 0,
    profile,
    signal,
    onRound: (results) => hooks.onRound?.(results, new Set()),
  });
  const commands: MotorCommand[] = [];
  for (const [e, r] of approached) {
    const steps = Math.min(press(e), MOTOR_MAX_POSITION - positionOf(device, e));
    if (r.after < CONTACT_KOHMS && steps > 0)
      commands.push({ electrode: e, movement: 'RELEASE', displacement: steps });
  }
  await moveAll(device, commands, profile.settleMs, signal);
  const values = await measure(device, electrodes, signal);
  for (const [e, r] of approached) {
    r.after = values.get(e) ?? r.after;
    r.position = positionOf(device, e);
    const state = stateOf(device, e);
    r.reached = r.after < CONTACT_KOHMS;
    r.attempts = commands.some((c) => c.electrode === e) ? 1 : 0;
    r.reason = !r.reached ? 'no_contact' : state === MOTOR_STATE.stalled ? 'stalled' : 'target_reached';
  }
  hooks.onRound?.(approached, new Set(electrodes));
  return approached;
}
