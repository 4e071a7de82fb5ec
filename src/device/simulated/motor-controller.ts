/**
 * The `MotorController` face of the motor array: validates commands (the whole batch before any
 * motor moves) and answers state codes and positions keyed by electrode.
 */
import type { Electrode } from '../../core/electrodes.js';
import {
  type ElectrodeMap,
  MOTOR_MAX_POSITION,
  MOTOR_MOVEMENTS,
  type MotorCommand,
  type MotorController,
  type MotorMovement,
  type MotorStateCode,
} from '../headset.js';
import { electrodeListOrThrow, electrodeOrThrow, numberInRangeOrThrow, oneOfOrThrow } from '../arguments.js';
import type { MotorArray } from './motors.js';
import { DeviceArgumentError, DeviceUnavailableError } from '../errors.js';
import { errorMessage } from '../../core/error-message.js';

interface ValidCommand {
  readonly electrode: Electrode;
  readonly movement: MotorMovement;
  readonly displacement: number;
}

/** Positions are exact; answer them to 1/1000 step so that 29.999999 reads 30. */
function roundPosition(position: number): number {
  return Math.round(position * 1000) / 1000;
}

export class SimulatedMotorController implements MotorController {
  constructor(
    private readonly motors: MotorArray,
    /** False while the device is lost: commands are refused (the motors were stopped then). */
    private readonly connected: () => boolean = () => true,
  ) {}

  stopAll(): Electrode[] {
    return this.motors.stopAll();
  }

  private assertConnected(): void {
    if (!this.connected()) {
      throw new DeviceUnavailableError(
        'disconnected',
        'The headset is not connected: its motors were stopped when it was lost, and no motor moves until it is back.',
      );
    }
  }

  positions(electrodes?: readonly string[]): ElectrodeMap<number> {
    const map: ElectrodeMap<number> = {};
    for (const e of electrodeListOrThrow(electrodes, 'electrode'))
      map[e] = roundPosition(this.motors.position(e));
    return map;
  }

  states(electrodes?: readonly string[]): ElectrodeMap<MotorStateCode> {
    const map: ElectrodeMap<MotorStateCode> = {};
    for (const e of electrodeListOrThrow(electrodes, 'electrode')) map[e] = this.motors.state(e);
    return map;
  }

  move(commands: readonly MotorCommand[]): Promise<ElectrodeMap<MotorStateCode>> {
    return Promise.resolve().then(() => {
      this.assertConnected();
      const list: readonly MotorCommand[] = Array.isArray(commands) ? commands : [];
      if (list.length === 0) {
        throw new DeviceArgumentError('Give at least one motor command in configuration.', {
          field: 'configuration',
        });
      }
      const valid = list.map((command, i) => this.validate(command, i));
      for (const command of valid)
        this.motors.command(command.electrode, command.movement, command.displacement);
      return this.states(valid.map((c) => c.electrode));
    });
  }

  reset(position: string): Promise<ElectrodeMap<MotorStateCode>> {
    return Promise.resolve().then(() => {
      this.assertConnected();
      this.motors.reset(oneOfOrThrow(position, ['MIN', 'MAX'] as const, 'position'));
      return this.states();
    });
  }

  waitUntilComplete(electrodes?: readonly string[]): Promise<void> {
    try {
      return this.motors.waitUntilComplete(electrodeListOrThrow(electrodes, 'electrode'));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(errorMessage(error)));
    }
  }

  private validate(command: MotorCommand, index: number): ValidCommand {
    const field = `configuration/${index}`;
    const electrode = electrodeOrThrow(command.electrode, `${field}/electrode`);
    const movement = oneOfOrThrow(command.movement, MOTOR_MOVEMENTS, `${field}/movement`);
    if (movement === 'STOP' || movement === 'BRAKE') return { electrode, movement, displacement: 0 };
    const displacement = numberInRangeOrThrow(
      command.displacement,
      `${field}/displacement`,
      0,
      MOTOR_MAX_POSITION,
      {
        exclusiveMin: true,
        unit: 'steps',
      },
    );
    return { electrode, movement, displacement };
  }
}
