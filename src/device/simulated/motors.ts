/**
 * The 21 electrode motors: linear actuators from 0 (MIN, retracted) to 100 (MAX) steps of
 * 0.1 mm at about 20 steps/s. Positions are computed from each move's start and speed, so they
 * are exact at any instant; one timer per moving motor ends its move. Moves of different
 * electrodes run in parallel; a new command to a moving motor replaces its move.
 *
 * Pressing onto the scalp stops at the contact model's safe force: the motor stalls (state 3)
 * there, whatever displacement was asked for, and reports it through `onStall`.
 */
import type { DeviceClock, TimerHandle } from '../clock.js';
import { ELECTRODES, type Electrode } from '../../core/electrodes.js';
import {
  MOTOR_MAX_POSITION,
  MOTOR_MIN_POSITION,
  MOTOR_STATE,
  type MotorMovement,
  type MotorStateCode,
} from '../headset.js';
import type { ContactModel } from './contact.js';

/** Steps per second. */
export const MOTOR_SPEED = 20;

/**
 * The move watchdog of the motor controller: a move that has not ended by its expected time
 * (distance ÷ MOTOR_SPEED) × MOVE_TIMEOUT_FACTOR + MOVE_TIMEOUT_MARGIN_MS is stopped where it is,
 * and the motor goes to fault. A healthy motor ends its moves on time; one that slips, binds or
 * jams would otherwise keep driving (and drawing current) for as long as it takes, or for ever.
 */
export const MOVE_TIMEOUT_FACTOR = 1.25;
export const MOVE_TIMEOUT_MARGIN_MS = 500;

interface Motor {
  /** Position at `since` (steps). */
  origin: number;
  since: number;
  /** Where the present move ends, and the state it ends in. */
  target: number;
  endState: MotorStateCode;
  state: MotorStateCode;
  timer: TimerHandle | undefined;
  /** Fires if the move outlasts its allowed time. */
  watchdog: TimerHandle | undefined;
  /** Steps per second of the present move (MOTOR_SPEED × the motor's health). */
  speed: number;
  /** The motor's speed as a fraction of MOTOR_SPEED (1 healthy, 0 jammed); a simulation control. */
  health: number;
}

/** What the watchdog reports of a move it stopped. */
export interface MoveTimeout {
  readonly position: number;
  readonly target: number;
  /** The move's expected duration, and the time it was allowed, ms. */
  readonly expectedMs: number;
  readonly allowedMs: number;
}

/** A motor's move: from `origin` at `since` (ms) toward `target` at `speed` steps/s; at rest, speed 0. */
export interface MotorMotion {
  readonly origin: number;
  readonly since: number;
  readonly target: number;
  readonly speed: number;
}

/** Every motor's move, as data a thread can be sent. */
export type MotorMotions = readonly (readonly [Electrode, MotorMotion])[];

/** The position (steps) of a motor in `motion` at `now` (ms). */
export function positionAt(motion: MotorMotion, now: number): number {
  const travelled = (motion.speed * Math.max(0, now - motion.since)) / 1000;
  const distance = motion.target - motion.origin;
  return Math.abs(distance) <= travelled ? motion.target : motion.origin + Math.sign(distance) * travelled;
}

export interface MotorArrayHooks {
  /** The motor stopped at the force limit (N) at `position` (steps). */
  onStall(electrode: Electrode, position: number, force: number): void;
  /** The watchdog stopped a move that outlasted its allowed time; the motor is now in fault. */
  onTimeout(electrode: Electrode, timeout: MoveTimeout): void;
  /** Any motor started or ended a move (for power accounting and waiters). */
  onChange(): void;
}

export class MotorArray {
  private readonly motors = new Map<Electrode, Motor>();
  private readonly waiters = new Set<{ electrodes: readonly Electrode[]; resolve: () => void }>();

  constructor(
    private readonly clock: DeviceClock,
    private readonly contact: ContactModel,
    private readonly hooks: MotorArrayHooks,
    initialPosition: number | ((electrode: Electrode) => number) = MOTOR_MIN_POSITION,
  ) {
    const now = clock.now();
    for (const electrode of ELECTRODES) {
      const wanted = typeof initialPosition === 'number' ? initialPosition : initialPosition(electrode);
      // A motor cannot start pressing harder than the safe force: it is stalled at the limit.
      const stallAt = contact.stallPosition(electrode);
      const position = Math.min(wanted, stallAt);
      const state = wanted >= stallAt ? MOTOR_STATE.stalled : MOTOR_STATE.idle;
      this.motors.set(electrode, {
        origin: position,
        since: now,
        target: position,
        endState: state,
        state,
        timer: undefined,
        watchdog: undefined,
        speed: MOTOR_SPEED,
        health: 1,
      });
    }
  }

  private motor(electrode: Electrode): Motor {
    const motor = this.motors.get(electrode);
    if (motor === undefined) throw new RangeError(`no motor for ${electrode}`);
    return motor;
  }

  /** Exact position in steps at this instant. */
  position(electrode: Electrode): number {
    return positionAt(this.motion(electrode), this.clock.now());
  }

  /** Each motor's present move (or rest), from which its position at any instant follows. */
  motions(): MotorMotions {
    return ELECTRODES.map((electrode) => [electrode, this.motion(electrode)] as const);
  }

  private motion(electrode: Electrode): MotorMotion {
    const { origin, since, target, speed, state } = this.motor(electrode);
    return state === MOTOR_STATE.moving
      ? { origin, since, target, speed }
      : { origin, since, target: origin, speed: 0 };
  }

  state(electrode: Electrode): MotorStateCode {
    return this.motor(electrode).state;
  }

  moving(): Electrode[] {
    return ELECTRODES.filter((e) => this.motor(e).state === MOTOR_STATE.moving);
  }

  stalled(): Electrode[] {
    return ELECTRODES.filter((e) => this.motor(e).state === MOTOR_STATE.stalled);
  }

  /** Applies one validated command; `displacement` in steps (> 0) for RETRACT and RELEASE. */
  command(electrode: Electrode, movement: MotorMovement, displacement: number): void {
    const motor = this.motor(electrode);
    if (motor.state === MOTOR_STATE.fault) return; // a faulted motor ignores commands until cleared
    const from = this.position(electrode);
    this.halt(motor, from, MOTOR_STATE.idle);
    switch (movement) {
      case 'STOP':
        break;
      case 'BRAKE':
        motor.state = MOTOR_STATE.braked;
        break;
      case 'RETRACT':
        this.travel(electrode, motor, Math.max(MOTOR_MIN_POSITION, from - displacement));
        break;
      case 'RELEASE':
        this.travel(electrode, motor, Math.min(MOTOR_MAX_POSITION, from + displacement));
        break;
    }
    this.hooks.onChange();
    this.settleWaiters();
  }

  /** Homing: every motor to MIN or MAX; clears faults (the controller re-initialises each axis). */
  reset(position: 'MIN' | 'MAX'): void {
    for (const electrode of ELECTRODES) {
      const motor = this.motor(electrode);
      if (motor.state === MOTOR_STATE.fault) motor.state = MOTOR_STATE.idle;
      this.command(electrode, position === 'MIN' ? 'RETRACT' : 'RELEASE', MOTOR_MAX_POSITION);
    }
  }

  /** Puts a motor into the fault state (4), as a driver error would; `false` clears it to idle. */
  setFault(electrode: Electrode, faulted: boolean): void {
    const motor = this.motor(electrode);
    if (faulted) {
      this.halt(motor, this.position(electrode), MOTOR_STATE.fault);
    } else if (motor.state === MOTOR_STATE.fault) {
      motor.state = MOTOR_STATE.idle;
    }
    this.hooks.onChange();
    this.settleWaiters();
  }

  /** Resolves when none of `electrodes` is moving. */
  waitUntilComplete(electrodes: readonly Electrode[]): Promise<void> {
    if (electrodes.every((e) => this.motor(e).state !== MOTOR_STATE.moving)) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.add({ electrodes, resolve });
    });
  }

  /**
   * Stops every moving motor where it is, at once (shutdown, loss of the device, device close);
   * answers the electrodes that were moving.
   */
  stopAll(): Electrode[] {
    const stopped: Electrode[] = [];
    for (const electrode of ELECTRODES) {
      const motor = this.motor(electrode);
      if (motor.state === MOTOR_STATE.moving) {
        this.halt(motor, this.position(electrode), MOTOR_STATE.idle);
        stopped.push(electrode);
      }
    }
    if (stopped.length > 0) this.hooks.onChange();
    this.settleWaiters();
    return stopped;
  }

  /**
   * A motor's speed as a fraction of MOTOR_SPEED from its next move on: 1 healthy, 0.5 slipping,
   * 0 jammed (a simulation control: a real motor's health is not chosen).
   */
  setHealth(electrode: Electrode, health: number): void {
    this.motor(electrode).health = Math.max(0, Math.min(1, health));
  }

  private halt(motor: Motor, at: number, state: MotorStateCode): void {
    if (motor.timer !== undefined) this.clock.clearTimeout(motor.timer);
    if (motor.watchdog !== undefined) this.clock.clearTimeout(motor.watchdog);
    motor.watchdog = undefined;
    motor.timer = undefined;
    motor.origin = at;
    motor.target = at;
    motor.since = this.clock.now();
    motor.state = state;
  }

  private travel(electrode: Electrode, motor: Motor, wanted: number): void {
    const from = motor.origin;
    const stallAt = this.contact.stallPosition(electrode);
    let target = wanted;
    let endState: MotorStateCode = MOTOR_STATE.idle;
    if (wanted > from && wanted >= stallAt) {
      // Pressing would exceed the safe force: the move ends at the force limit, stalled.
      target = Math.max(from, stallAt);
      endState = MOTOR_STATE.stalled;
    }
    motor.target = target;
    motor.endState = endState;
    const expectedMs = (Math.abs(target - from) / MOTOR_SPEED) * 1000;
    if (expectedMs === 0) {
      this.finish(electrode, motor);
      return;
    }
    motor.state = MOTOR_STATE.moving;
    motor.speed = MOTOR_SPEED * motor.health;
    // A jammed motor (speed 0) never arrives: only its watchdog ends the move.
    if (motor.speed > 0) {
      motor.timer = this.clock.setTimeout(
        () => {
          this.finish(electrode, motor);
        },
        (Math.abs(target - from) / motor.speed) * 1000,
      );
    }
    const allowedMs = expectedMs * MOVE_TIMEOUT_FACTOR + MOVE_TIMEOUT_MARGIN_MS;
    motor.watchdog = this.clock.setTimeout(() => {
      motor.watchdog = undefined;
      this.timedOut(electrode, motor, { target, expectedMs, allowedMs });
    }, allowedMs);
  }

  private timedOut(electrode: Electrode, motor: Motor, move: Omit<MoveTimeout, 'position'>): void {
    if (motor.state !== MOTOR_STATE.moving) return;
    const position = this.position(electrode);
    this.halt(motor, position, MOTOR_STATE.fault);
    this.hooks.onTimeout(electrode, { ...move, position });
    this.hooks.onChange();
    this.settleWaiters();
  }

  private finish(electrode: Electrode, motor: Motor): void {
    if (motor.watchdog !== undefined) this.clock.clearTimeout(motor.watchdog);
    motor.watchdog = undefined;
    motor.timer = undefined;
    motor.origin = motor.target;
    motor.since = this.clock.now();
    motor.state = motor.endState;
    if (motor.state === MOTOR_STATE.stalled) {
      this.hooks.onStall(electrode, motor.origin, this.contact.force(electrode, motor.origin));
    }
    this.hooks.onChange();
    this.settleWaiters();
  }

  private settleWaiters(): void {
    for (const waiter of this.waiters) {
      if (waiter.electrodes.every((e) => this.motor(e).state !== MOTOR_STATE.moving)) {
        this.waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }
}
