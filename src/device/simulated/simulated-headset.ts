/**
 * The simulated headset: the device models of this folder composed behind the `Headset`
 * interface. It is the service's default device, and with another `signalSource` the base of the
 * replay device (everything but the EEG stays simulated).
 *
 * Deterministic under `seed`: every model draws from its own seeded random stream, so the same
 * seed, the same calls and the same clock give the same samples, impedances and readings.
 */
import { DeviceArgumentError } from '../errors.js';
import { AcquisitionEngine } from '../acquisition.js';
import { type DeviceClock, repeat, systemClock } from '../clock.js';
import { type Electrode, electrodesAmong, isEegElectrode } from '../../core/electrodes.js';
import {
  type DeviceEvent,
  type EventLevel,
  ListenerSet,
  type SystemEventType,
  type Unsubscribe,
} from '../events.js';
import {
  type DeviceInfo,
  type DeviceStatus,
  type ElectrodeMap,
  type Headset,
  MOTOR_MAX_POSITION,
  MOTOR_MIN_POSITION,
  type ThermalModel,
} from '../headset.js';
import type { EegSignalSource } from '../signal-source.js';
import { numberInRangeOrThrow } from '../arguments.js';
import { SimulatedBus } from './bus.js';
import { ContactModel } from './contact.js';
import { SimulatedEegSource } from './eeg.js';
import { SimulatedImpedanceMeter } from './impedance.js';
import { SimulatedImu } from './imu.js';
import { SimulatedLeds } from './leds.js';
import { MOTOR_SPEED, MotorArray } from './motors.js';
import { SimulatedMotorController } from './motor-controller.js';
import { type BatteryOptions, SimulatedPower } from './power.js';
import { Random } from './random.js';
import { signalQuality } from './quality.js';
import { type SimulatedWearer, WearerModel, type WearerState } from './wearer.js';
import type { PlayedMarker } from '../production/producer.js';
import type { ThreadSource } from '../production/thread-protocol.js';
import { ROUND_MS } from '../../core/shared-rounds.js';
import {
  FirstOrderTemperature,
  PROCESSOR_TIME_CONSTANT_MS,
  processorSteadyCelsius,
  roundCelsius,
} from './thermal.js';

/**
 * Housekeeping period (ms): battery integration, low-battery check, quality events. The API
 * thread's round, so that the housekeeping shares its wake-up with the service's other periodic
 * work (core/shared-rounds.ts).
 */
const HOUSEKEEPING_MS = ROUND_MS;
/** Steps past contact of `initialMotorPosition: 'scalp'`. */
const SCALP_DEPTH = 15;

export interface SimulatedHeadsetOptions {
  /** Seed of every random stream (default 1). */
  readonly seed?: number;
  /** Time source (default the system clock); tests pass `dateClock()` under fake timers. */
  readonly clock?: DeviceClock;
  /**
   * Every motor's position at power-on: 0..100 steps (default 0, fully retracted; past the safe
   * force an electrode starts stalled at it), or `'scalp'`: each electrode 15 steps past its own
   * contact, about 20 kΩ and settling (handy for app development without a preparation step).
   */
  readonly initialMotorPosition?: number | 'scalp';
  /** 50 (default) or 60 Hz. */
  readonly mainsFrequency?: number;
  readonly battery?: BatteryOptions;
  /** Replaces the simulated EEG (the replay device). */
  readonly signalSource?: EegSignalSource;
  /**
   * The entry module of the device's thread (service/device-thread-entry.ts), where the EEG frames are
   * then produced on the system's clock; absent, or with a `clock` of the caller's: on the
   * headset's own thread.
   */
  readonly deviceThread?: URL;
  /** With `signalSource`: what the device's thread makes the same samples of (the replayed file). */
  readonly threadSource?: ThreadSource;
  /** Overrides the identity answered by `info()` (the replay device says `replay`). */
  readonly info?: Partial<DeviceInfo>;
  /** Where errors thrown by frame and event listeners go (default: a process warning). */
  readonly onListenerError?: (error: unknown) => void;
}

/** Handles into the simulation that a real device would not have; for tests and tools. */
export interface SimulationControls {
  contactPosition(electrode: Electrode): number;
  stallPosition(electrode: Electrode): number;
  /** The contact model's impedance (Ω) now, without measurement noise or delay. */
  trueImpedance(electrode: Electrode): number;
  /** Contact force (N) now. */
  force(electrode: Electrode): number;
  /** Plugs or unplugs the charger. */
  setAcConnected(connected: boolean): void;
  /** A motor's speed as a fraction of the nominal from its next move on: 1 healthy, 0 jammed. */
  setMotorHealth(electrode: Electrode, health: number): void;
  /** Drops (false) or restores (true) the link to the headset: losing it stops every moving motor. */
  setConnected(connected: boolean): void;
}

export class SimulatedHeadset implements Headset {
  readonly eeg: AcquisitionEngine;
  readonly impedance: SimulatedImpedanceMeter;
  readonly motors: SimulatedMotorController;
  readonly leds: SimulatedLeds;
  readonly imu: SimulatedImu;
  readonly power: SimulatedPower;
  readonly thermal: ThermalModel;
  readonly bus: SimulatedBus;
  readonly simulation: SimulationControls;
  readonly clock: DeviceClock;
  /** What the wearer looks at (POST /simulator/stimulus); absent when a file replaces the EEG. */
  readonly wearer?: SimulatedWearer;

  private readonly contact: ContactModel;
  private readonly motorArray: MotorArray;
  private readonly events: ListenerSet<DeviceEvent>;
  private readonly identity: DeviceInfo;
  private stopHousekeeping: (() => void) | undefined;
  private closed = false;
  /** False while the simulated link to the headset is down (SimulationControls.setConnected). */
  private connected = true;

  constructor(options: SimulatedHeadsetOptions = {}) {
    const seed = options.seed ?? 1;
    const random = new Random(seed, 'headset');
    const clock = options.clock ?? systemClock;
    this.clock = clock;
    this.events = new ListenerSet<DeviceEvent>(options.onListenerError);
    this.contact = new ContactModel(random.fork('contact'), clock.now());
    const initialPosition =
      options.initialMotorPosition === 'scalp'
        ? (e: Electrode) => this.contact.contactPosition(e) + SCALP_DEPTH
        : numberInRangeOrThrow(
            options.initialMotorPosition ?? MOTOR_MIN_POSITION,
            'initialMotorPosition',
            MOTOR_MIN_POSITION,
            MOTOR_MAX_POSITION,
          );

    this.motorArray = new MotorArray(
      clock,
      this.contact,
      {
        onStall: (electrode, position, force) => {
          this.system(
            'motor_stalled',
            'warning',
            `Motor ${electrode} stalled at ${position.toFixed(1)} steps: the electrode presses with the safe maximum force (${force.toFixed(1)} N).`,
          );
        },
        onTimeout: (electrode, move) => {
          this.system(
            'motor_timeout',
            'error',
            `Motor ${electrode} did not reach ${move.target.toFixed(1)} steps within ${(move.allowedMs / 1000).toFixed(2)} s (the move takes ${(move.expectedMs / 1000).toFixed(2)} s at ${MOTOR_SPEED} steps/s): it was stopped at ${move.position.toFixed(1)} steps and is in fault (state 4) until reset.`,
          );
        },
        onChange: () => {
          this.power.update(clock.now());
          this.eeg.updateThread({ kind: 'motions', motions: this.motorArray.motions() });
        },
      },
      initialPosition,
    );
    this.motors = new SimulatedMotorController(this.motorArray, () => this.connected);
    this.impedance = new SimulatedImpedanceMeter(clock, random.fork('impedance'), {
      trueImpedance: (e) => this.trueImpedance(e),
      acquisitionOwners: () => (this.eeg.state().streaming ? this.eeg.state().owners : []),
      onMeasured: (values) => {
        this.emitImpedance(values);
      },
    });
    let source = options.signalSource;
    let threadSource: (() => ThreadSource) | undefined =
      options.threadSource === undefined ? undefined : () => options.threadSource as ThreadSource;
    if (source === undefined) {
      const wearer = new WearerModel(random.fork('wearer'), () => clock.now());
      const eegOptions = this.eegOptions(options);
      this.wearer = this.toldToThread(wearer);
      source = new SimulatedEegSource(random.fork('eeg'), { ...eegOptions, wearer });
      threadSource = () => ({
        kind: 'simulated',
        seed,
        ...eegOptions,
        contact: this.contact.snapshot(),
        motions: this.motorArray.motions(),
        wearer: wearer.snapshot(),
      });
    }
    // The device's thread keeps the system's time: a clock of the caller's (moved by hand in a
    // test) keeps the production on this thread, on that clock.
    const thread =
      options.deviceThread === undefined || threadSource === undefined || options.clock !== undefined
        ? undefined
        : { entry: options.deviceThread, source: threadSource };
    this.eeg = new AcquisitionEngine(
      clock,
      source,
      {
        impedance: (e) => this.trueImpedance(e),
        measuringImpedance: () => this.impedance.measuring(),
        impedanceHolder: () => this.impedance.measuringFor(),
        onStarted: (config) => {
          this.power.update(clock.now());
          this.system(
            'acquisition_started',
            'info',
            `EEG acquisition started: ${config.channels.length} channels at ${config.samplingFrequency} Hz, gain ${config.gain}.`,
          );
        },
        onStopped: (samples) => {
          this.power.update(clock.now());
          this.system('acquisition_stopped', 'info', `EEG acquisition stopped after ${samples} samples.`);
        },
        onFailed: (samples, error) => {
          this.power.update(clock.now());
          this.system(
            'acquisition_stopped',
            'error',
            `EEG acquisition failed and stopped after ${samples} samples: ${error.message}`,
          );
        },
        onMarkers: (markers) => {
          this.onMarkers(markers);
        },
        ...(options.onListenerError === undefined ? {} : { onListenerError: options.onListenerError }),
      },
      thread,
    );
    this.leds = new SimulatedLeds(clock);
    this.imu = new SimulatedImu(clock, random.fork('imu'));
    const powerRandom = random.fork('power');
    this.power = new SimulatedPower(
      powerRandom,
      clock.now(),
      {
        load: () => ({
          acquiringAt: this.eeg.state().streaming ? this.eeg.config().samplingFrequency : 0,
          measuringImpedance: this.impedance.measuring(),
          motorsMoving: this.motorArray.moving().length,
        }),
        onLowBattery: (percent) => {
          this.system(
            'low_battery',
            'warning',
            `Battery at ${percent.toFixed(1)} %, below the ${this.power.lowBatteryThreshold()} % threshold: connect the charger.`,
          );
        },
        onChargingChanged: (charging, percent) => {
          this.system(
            charging ? 'charging_started' : 'charging_stopped',
            'info',
            charging
              ? `Charging from ${percent.toFixed(1)} %.`
              : `Charging stopped at ${percent.toFixed(1)} %.`,
          );
        },
      },
      options.battery,
    );
    const processor = new FirstOrderTemperature(
      PROCESSOR_TIME_CONSTANT_MS,
      processorSteadyCelsius(0),
      clock.now(),
    );
    this.thermal = {
      processorCelsius: (load) => roundCelsius(processor.update(clock.now(), processorSteadyCelsius(load))),
      batteryTemperatureSource: 'simulated',
    };
    this.bus = new SimulatedBus({
      acquisition: () => this.eeg.state(),
      measuringImpedance: () => this.impedance.measuring(),
      motorPosition: (e) => this.motorArray.position(e),
      motorState: (e) => this.motorArray.state(e),
      motorForce: (e) => this.contact.force(e, this.motorArray.position(e)),
      setMotorFault: (e, faulted) => {
        this.motorArray.setFault(e, faulted);
        if (faulted)
          this.system('motor_fault', 'error', `Motor ${e} reported a fault; it ignores moves until reset.`);
      },
      led: (index) => this.leds.read(index),
      setLed: (index, change) => this.leds.apply({ index, ...change }),
      imu: (channel) => (channel === 0 ? this.imu.primary() : this.imu.node(channel - 1)),
      battery: () => this.power.battery(),
      drawMilliwatts: () => this.power.drawMilliwatts(),
      setAcConnected: (connected) => {
        this.power.setAcConnected(connected, clock.now());
      },
      lowBatteryThreshold: () => this.power.lowBatteryThreshold(),
      setLowBatteryThreshold: (percent) => {
        this.power.setLowBatteryThreshold(percent);
      },
    });
    this.identity = {
      kind: 'simulated',
      model: 'HS-21',
      hardware: 'HS-21 rev C (simulated)',
      firmware: '1.0.0-sim',
      serial: `SIM-${seed.toString(16).toUpperCase().padStart(8, '0')}`,
      ...options.info,
    };
    this.simulation = {
      contactPosition: (e) => this.contact.contactPosition(e),
      stallPosition: (e) => this.contact.stallPosition(e),
      trueImpedance: (e) => this.trueImpedance(e),
      force: (e) => this.contact.force(e, this.motorArray.position(e)),
      setAcConnected: (connected) => {
        this.power.setAcConnected(connected, clock.now());
      },
      setMotorHealth: (e, health) => {
        this.motorArray.setHealth(e, health);
      },
      setConnected: (connected) => {
        this.setConnected(connected);
      },
    };
    this.scheduleHousekeeping();
  }

  onEvent(listener: (event: DeviceEvent) => void): Unsubscribe {
    return this.events.add(listener);
  }

  /** Markers the EEG's samples passed (a replayed file's); the simulated EEG has none. */
  protected onMarkers(_markers: readonly PlayedMarker[]): void {
    // The simulated EEG passes no marker.
  }

  /** The wearer's controls, each change told to the device's thread's copy of the wearer. */
  private toldToThread(wearer: WearerModel): SimulatedWearer {
    const told = (state: WearerState): WearerState => {
      this.eeg.updateThread({ kind: 'wearer', wearer: wearer.snapshot() });
      return state;
    };
    return {
      lookAt: (request) => told(wearer.lookAt(request)),
      setEyes: (eyes) => told(wearer.setEyes(eyes)),
      state: () => wearer.state(),
    };
  }

  status(): DeviceStatus {
    const eeg = this.eeg.state();
    const measuring = this.impedance.measuring();
    const moving = this.motorArray.moving();
    this.power.update(this.clock.now());
    const battery = this.power.battery();
    return {
      state: measuring
        ? 'measuring_impedance'
        : eeg.streaming
          ? 'acquiring'
          : moving.length > 0
            ? 'moving'
            : 'idle',
      eeg,
      impedance: { measuring },
      motors: { moving, stalled: this.motorArray.stalled() },
      battery: { percent: battery.percent, isCharging: battery.isCharging },
    };
  }

  info(): DeviceInfo {
    return this.identity;
  }

  /**
   * The link to the headset drops or comes back. The headset's motor controller stops every
   * moving motor when it loses its host (it must not keep pressing electrodes that nobody can stop),
   * and motor commands are refused until the link is back.
   */
  private setConnected(connected: boolean): void {
    if (connected === this.connected) return;
    this.connected = connected;
    if (!connected) {
      const stopped = this.motorArray.stopAll();
      const which =
        stopped.length === 0
          ? 'no motor was moving'
          : `motors ${stopped.join(', ')} were stopped where they were`;
      this.system(
        'device_lost',
        'error',
        `The headset was lost: ${which}; motor commands are refused until it is back.`,
      );
    } else {
      this.system('device_restored', 'info', 'The headset is back; motors accept commands again.');
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // The end of a run produced in the device's thread is reported once its last frames left.
    const ended = this.eeg.close();
    this.impedance.close();
    this.motorArray.stopAll();
    this.stopHousekeeping?.();
    this.stopHousekeeping = undefined;
    await ended;
    this.events.clear();
  }

  private eegOptions(options: SimulatedHeadsetOptions): { mainsFrequency?: number } {
    if (options.mainsFrequency === undefined) return {};
    if (options.mainsFrequency !== 50 && options.mainsFrequency !== 60) {
      throw new DeviceArgumentError('mainsFrequency must be 50 or 60 Hz.', {
        field: 'mainsFrequency',
      });
    }
    return { mainsFrequency: options.mainsFrequency };
  }

  private trueImpedance(electrode: Electrode): number {
    return this.contact.impedance(electrode, this.motorArray.position(electrode), this.clock.now());
  }

  private system(eventType: SystemEventType, level: EventLevel, message: string): void {
    this.events.emit({ type: 'system', timestamp: this.clock.wallNow(), eventType, level, message });
  }

  private emitImpedance(values: ElectrodeMap<number>): void {
    const data: Record<string, number> = {};
    for (const [electrode, ohms] of Object.entries(values)) data[electrode] = Math.round(ohms / 10) / 100;
    this.events.emit({ type: 'impedance', timestamp: this.clock.wallNow(), data });
  }

  private scheduleHousekeeping(): void {
    this.stopHousekeeping = repeat(
      this.clock,
      () => {
        if (this.closed) return;
        this.power.update(this.clock.now());
        const eeg = this.eeg.state();
        if (eeg.streaming) {
          const channels = electrodesAmong(eeg.config.channels).filter(isEegElectrode);
          this.events.emit({
            type: 'quality',
            timestamp: this.clock.wallNow(),
            data: signalQuality(channels, (e) => this.trueImpedance(e)),
          });
        }
      },
      HOUSEKEEPING_MS,
    );
  }
}

/** The default device of the service (`--device simulated`). */
export function createSimulatedHeadset(options: SimulatedHeadsetOptions = {}): SimulatedHeadset {
  return new SimulatedHeadset(options);
}
