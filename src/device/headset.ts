/**
 * The headset as the rest of the service sees it: one interface for the whole device, implemented
 * by the simulated headset (the default), the replay device and, later, the hardware driver.
 * The HTTP layer and the stream engine know only this file.
 *
 * Conventions:
 * - Commands that a hardware driver must send over a wire return promises; reads return the
 *   device's last known state synchronously (a driver keeps that state current by polling).
 * - Inputs are typed loosely (`string`, `number`) and validated here: an out-of-range or unknown
 *   value throws a `DeviceArgumentError` (validation_failed) naming the field and what is allowed;
 *   a conflict between operations throws a `DeviceBusyError` (device_busy) naming what holds the
 *   device; a closed or lost device throws a `DeviceUnavailableError` (errors.ts).
 * - Electrode names are matched case-insensitively on input and answered upper-case (`FP1`).
 * - Units: EEG in µV, impedance in Ω, motor positions in steps (0.1 mm), IMU in mm and degrees,
 *   times in ms.
 */
import type { ReplayRecordingInfo } from './replay/recording.js';
import type { Frame } from '../core/frame.js';
import type { FramePort } from '../core/node.js';
import type { StreamThread } from '../core/stream-thread.js';
import type { DeviceClock } from './clock.js';
import { EEG_ELECTRODES, type Electrode, type ElectrodeMap } from '../core/electrodes.js';
import type { DeviceEvent, Unsubscribe } from './events.js';
import type { DeviceChannel, UnplayedChannel } from './channels.js';
import type { SimulatedWearer } from './simulated/wearer.js';

export type { DeviceEvent, SystemEvent, ImpedanceEvent, QualityEvent, Unsubscribe } from './events.js';
export type { Electrode, ElectrodeMap } from '../core/electrodes.js';
import type { EegGain, EegSamplingFrequency } from '../core/hardware.js';

// ---------------------------------------------------------------------------------------------
// EEG acquisition

// The front end's gains and sampling frequencies are the headset's hardware facts: core/hardware.ts.

export interface EegConfig {
  /**
   * The channels acquired, in the order they were configured: on the headset (simulated, replay)
   * its EEG electrodes, upper-case (`FP1`); on a live amplifier its channels' own names (`TP9`).
   */
  readonly channels: readonly string[];
  readonly gain: EegGain;
  /** Hz. */
  readonly samplingFrequency: EegSamplingFrequency;
}

/** Defaults of docs/system-paths.md §/system: all 19 EEG channels, gain 24, 250 Hz. */
export const DEFAULT_EEG_CONFIG: EegConfig = Object.freeze({
  channels: EEG_ELECTRODES,
  gain: 24,
  samplingFrequency: 250,
});

/** A requested change of the EEG configuration, validated by the device. */
export interface EegConfigChange {
  /** Channel names, any case (`channelList`): on the headset its EEG electrodes (CMS and DRL have no channel). */
  readonly channels?: readonly string[];
  readonly gain?: number;
  readonly samplingFrequency?: number;
}

/**
 * Who holds the acquisition. Acquisition runs while at least one owner holds it, so stopping the
 * streams' hold never stops an acquisition a client started through /system. Holds are per owner,
 * not counted: the stream engine counts its own eeg-sources and releases 'streams' after the last.
 */
export type AcquisitionOwner = 'client' | 'streams';

export interface AcquisitionState {
  readonly streaming: boolean;
  readonly owners: readonly AcquisitionOwner[];
  /** Sample rows delivered since acquisition last went from stopped to running. */
  readonly samples: number;
  readonly config: EegConfig;
}

export interface EegAcquisition {
  config(): EegConfig;
  /**
   * Changes the configuration. While acquisition runs it restarts at once with the new settings:
   * the next frame carries `discontinuity: true` (and the new `sampleRate`).
   */
  configure(change: EegConfigChange): Promise<EegConfig>;
  /**
   * Restores `DEFAULT_EEG_CONFIG` and stops acquisition for every owner. Refused (`device_busy`,
   * `details.heldBy.owners: ['streams']`) while streams hold acquisition, unless `force`: their
   * samples would stop.
   */
  reset(options?: { readonly force?: boolean }): Promise<EegConfig>;
  /**
   * The channels frames carry now, or would carry if acquisition started now, as configured
   * (`config().channels`' form): the configured channels the source has (a replayed recording may
   * lack some).
   */
  acquiredChannels(): readonly string[];
  /**
   * Every channel the device can play, in its order, under the name frames give it, with its unit,
   * type and (for a 10-05 site) place on the head (channels.ts). A frozen list, the same one until
   * the channels change (then a new one): readers keep what they make of it (GET /system/status
   * keeps its JSON text).
   */
  channels(): readonly DeviceChannel[];
  /** The channels the device has but does not play, each with the reason; a list as `channels()`'. */
  unplayedChannels(): readonly UnplayedChannel[];
  /**
   * Channel names asked for (any case, as frames or the configuration name them) in the
   * configuration's form, each once; `validation_failed` pointing at `field/index` for a name the
   * device does not play.
   */
  channelList(names: readonly string[], field?: string): string[];
  /**
   * Takes a hold on the acquisition for `owner`, starting it when it was stopped. `initial` applies
   * only when acquisition was stopped (an eeg-source asking for its rate); a running acquisition
   * keeps its configuration, and the caller adapts (resamples). Throws `device_busy` while an
   * impedance measurement runs.
   */
  start(owner: AcquisitionOwner, initial?: EegConfigChange): Promise<AcquisitionState>;
  /** Releases `owner`'s hold; acquisition stops when no owner holds it. Idempotent. */
  stop(owner: AcquisitionOwner): Promise<AcquisitionState>;
  state(): AcquisitionState;
  /**
   * Frames of about 10 ms while acquisition runs: µV, row-major Float32Array, upper-case channel
   * names, `seq` increasing over the device's life, `timestamp` of the first sample (ms since the
   * epoch), `discontinuity: true` on the first frame after a start or a configuration change.
   * Frames are shared between listeners and must not be modified.
   */
  onFrame(listener: (frame: Frame) => void): Unsubscribe;
  /**
   * A port the thread that produces the frames writes every one of them to, until it is closed
   * (core/node.ts `FramePort`): how a stream's worker reads the device without the frames passing
   * through the main thread when they are produced elsewhere.
   */
  framePort(): FramePort;
  /**
   * The thread that produces the frames, when it runs elsewhere and can host the streams that read
   * them (core/stream-thread.ts `StreamThread`); undefined when the frames are made on
   * this thread, or the device is closed.
   */
  streamThread(): StreamThread | undefined;
}

// ---------------------------------------------------------------------------------------------
// Impedance

export interface MeasureOptions {
  /**
   * Aborts the measurement: a queued one leaves the queue, a running one switches the test current
   * off. The promise rejects with the signal's reason, and the meter counts the measurement as
   * over at once, so an acquisition started right after the abort is not refused.
   */
  readonly signal?: AbortSignal;
  /**
   * Who measures, in words (`impedance session 3f…`): named by the 409 of an acquisition asked for
   * while this measurement runs or waits.
   */
  readonly holder?: string;
}

export interface ImpedanceMeter {
  /**
   * Measures the impedance of electrodes (all 21 when omitted) in Ω. All electrodes are measured at
   * once, so one measurement takes {@link ImpedanceMeter.measurementMs} whatever their number;
   * concurrent calls are served one after another. Throws `device_busy` while EEG is acquired (the
   * test current would corrupt the EEG), and `validation_failed` for an unknown electrode or an
   * empty list.
   */
  measure(electrodes?: readonly string[], options?: MeasureOptions): Promise<ElectrodeMap<number>>;
  /** Whether a measurement runs or waits. */
  measuring(): boolean;
  /** ms one measurement takes: the shortest interval between readings the meter can keep. */
  measurementMs(): number;
}

// ---------------------------------------------------------------------------------------------
// Motors

export const MOTOR_MOVEMENTS = ['RETRACT', 'RELEASE', 'STOP', 'BRAKE'] as const;
export type MotorMovement = (typeof MOTOR_MOVEMENTS)[number];

/** Motor state codes of docs/system-paths.md §/system. */
export const MOTOR_STATE = { idle: 0, moving: 1, braked: 2, stalled: 3, fault: 4 } as const;
export type MotorStateCode = (typeof MOTOR_STATE)[keyof typeof MOTOR_STATE];

/** Fully retracted and fully extended positions, in steps (one step is 0.1 mm). */
export const MOTOR_MIN_POSITION = 0;
export const MOTOR_MAX_POSITION = 100;

export interface MotorCommand {
  readonly electrode: string;
  /** RETRACT (toward 0, away from the scalp), RELEASE (toward 100), STOP, BRAKE; any case. */
  readonly movement: string;
  /** Steps, 0 < d ≤ 100; required for RETRACT and RELEASE, ignored for STOP and BRAKE. */
  readonly displacement?: number;
}

export interface MotorController {
  /** Positions in steps (0 = MIN, fully retracted .. 100 = MAX), all 21 when omitted. */
  positions(electrodes?: readonly string[]): ElectrodeMap<number>;
  states(electrodes?: readonly string[]): ElectrodeMap<MotorStateCode>;
  /**
   * Starts the moves (each electrode in parallel; a command to a moving motor replaces its move)
   * and answers the state codes of the commanded electrodes right after. The whole batch is
   * validated before any motor moves.
   */
  move(commands: readonly MotorCommand[]): Promise<ElectrodeMap<MotorStateCode>>;
  /** Moves all 21 motors to MIN or MAX; answers their state codes right after. */
  reset(position: string): Promise<ElectrodeMap<MotorStateCode>>;
  /** Resolves when none of the electrodes (all when omitted) is moving. */
  waitUntilComplete(electrodes?: readonly string[]): Promise<void>;
  /**
   * Stops every moving motor where it is, synchronously, and answers the electrodes that were
   * moving. The service calls it when it starts (a service killed during a move leaves the motors
   * driving), first thing when it shuts down, and before a forced exit.
   */
  stopAll(): Electrode[];
}

// ---------------------------------------------------------------------------------------------
// LEDs

export const LED_INDICES = ['USER', 'STATUS'] as const;
export type LedIndex = (typeof LED_INDICES)[number];
export type LedMode = 'STATIC' | 'BLINKING' | 'OFF';

export interface LedState {
  readonly index: LedIndex;
  /** `#RRGGBB`, upper-case. Black (`#000000`) is off. */
  readonly color: string;
  /** Whether the LED is lit at this instant (a blinking LED alternates). */
  readonly active: boolean;
  readonly state: LedMode;
  readonly blinksPerSecond: number;
}

export interface LedSettings {
  readonly index: LedIndex;
  readonly color: string;
  readonly blinksPerSecond: number;
}

export interface LedChange {
  /** USER (default) or STATUS, any case. */
  readonly index?: string;
  /** `#RGB` or `#RRGGBB`; unchanged when omitted. */
  readonly color?: string;
  /** 0..20; 0 is steady light; unchanged when omitted. */
  readonly blinksPerSecond?: number;
}

export interface LedController {
  read(index?: string): LedState;
  set(change: LedChange): Promise<LedSettings>;
}

// ---------------------------------------------------------------------------------------------
// IMU

/** Position in mm from the rest position; orientation in degrees. */
export interface ImuReading {
  readonly pos_x: number;
  readonly pos_y: number;
  readonly pos_z: number;
  readonly roll: number;
  readonly pitch: number;
  readonly yaw: number;
}

export const IMU_NODE_COUNT = 4;

/**
 * The output data rates the IMUs run at, Hz: a MEMS IMU's usual steps (docs/device.md §IMU). A
 * reading is the one of the last sample instant, so two reads within one sample period agree.
 */
export const IMU_RATES = [25, 50, 100, 200, 400, 800] as const;
export const IMU_DEFAULT_RATE = 100;

export interface Imu {
  /** The headset's main IMU. */
  primary(): ImuReading;
  /** One of the band's IMU nodes; `nodeIndex` outside 0..3 is `validation_failed`. */
  node(nodeIndex: number): ImuReading;
  /** The output data rate of every IMU, Hz (one of IMU_RATES). */
  rate(): number;
  /** Sets the output data rate of every IMU; a rate not in IMU_RATES is `validation_failed`. */
  setRate(hz: number): void;
}

// ---------------------------------------------------------------------------------------------
// Power

/** The `battery` object of the health record (docs/system-paths.md §The device). */
export interface BatteryStatus {
  readonly hasBattery: boolean;
  readonly cycleCount: number;
  readonly isCharging: boolean;
  /** In `capacityUnit` (mWh). */
  readonly designedCapacity: number;
  readonly maxCapacity: number;
  readonly currentCapacity: number;
  /** V. */
  readonly voltage: number;
  readonly capacityUnit: string;
  /** 0..100. */
  readonly percent: number;
  /** Minutes of use left at the present draw; null while charging. */
  readonly timeRemaining: number | null;
  /** °C of the pack; null where the device can neither read nor model it. */
  readonly temperature: number | null;
  readonly acConnected: boolean;
  readonly type: string;
  readonly model: string;
  readonly manufacturer: string;
  readonly serial: string;
}

export interface PowerSupply {
  battery(): BatteryStatus;
  /** Percent under which `low_battery` is emitted (once per crossing). */
  lowBatteryThreshold(): number;
  /** 0..100, else `validation_failed`. */
  setLowBatteryThreshold(percent: number): void;
}

// ---------------------------------------------------------------------------------------------
// Thermal

/** Where a temperature comes from: a sensor, or the device's thermal model. */
export type TemperatureSource = 'sensor' | 'simulated';

export interface ThermalModel {
  /**
   * °C of the headset's processor under `loadPercent` (0..100) of CPU load, from the device's
   * thermal model; the service reports it where the machine it runs on has no temperature sensor.
   * Call it with the load of the interval since the previous call.
   */
  processorCelsius(loadPercent: number): number;
  /** Where `power.battery().temperature` comes from. */
  readonly batteryTemperatureSource: TemperatureSource;
}

// ---------------------------------------------------------------------------------------------
// Peripheral bus

/**
 * The debug command packet (docs/device.md §Peripheral bus). Numbers may arrive as strings (decimal
 * or `0x` hex). See docs/device.md for the meaning of each field and the peripherals' registers.
 */
export interface DebugCommand {
  readonly txnID?: number | string;
  readonly packetType: number | string;
  readonly srcDevice?: number | string;
  readonly cmdResp: number | string;
  readonly peripheral: number | string;
  readonly peripheralChannels: number | string;
  readonly parameter: readonly (number | string)[];
  readonly data: readonly (number | string)[];
}

/** The answer: the command echoed, with `packetType`, `srcDevice`, `cmdResp` and `data` filled by the peripheral. */
export interface DebugResponse {
  readonly txnID: number;
  readonly packetType: number;
  readonly srcDevice: number;
  /** Status: 0 ok, else an error code of docs/device.md. */
  readonly cmdResp: number;
  readonly peripheral: number;
  readonly peripheralChannels: number;
  readonly parameter: readonly number[];
  readonly data: readonly number[];
}

export interface PeripheralBus {
  /** Sends one packet; malformed packets are `validation_failed`, peripheral errors come back in `cmdResp`. */
  command(packet: DebugCommand): Promise<DebugResponse>;
}

// ---------------------------------------------------------------------------------------------
// Status and identity

export type DeviceState = 'idle' | 'acquiring' | 'measuring_impedance' | 'moving';

/**
 * The parts a device has (docs/devices.md §Capabilities), as the API names them: `capabilities.ts`
 * derives them from which optional parts of the `Headset` the device has, so a device cannot say
 * it has a part it lacks. The simulated headset and the replay device have every part; a live
 * amplifier (Cyton, LSL) has EEG, impedance when its driver measures it, a battery when its driver
 * reads one, and nothing else.
 */
export interface DeviceCapabilities {
  readonly eeg: boolean;
  /** `impedance`. */
  readonly impedance: boolean;
  /** `motors`. */
  readonly motors: boolean;
  /** `leds`. */
  readonly leds: boolean;
  /** `imu`. */
  readonly imu: boolean;
  /** `power`: a battery the device reads. */
  readonly battery: boolean;
  /** `bus`: the debug command channel to the device's peripherals. */
  readonly peripheralBus: boolean;
}

export type DeviceCapability = keyof DeviceCapabilities;

export interface DeviceStatus {
  /** measuring_impedance, else acquiring, else moving (any motor), else idle. */
  readonly state: DeviceState;
  readonly eeg: AcquisitionState;
  readonly impedance: { readonly measuring: boolean };
  readonly motors: { readonly moving: readonly Electrode[]; readonly stalled: readonly Electrode[] };
  /** Null on a device without a battery (no `power`). */
  readonly battery: { readonly percent: number; readonly isCharging: boolean } | null;
  /**
   * A live device whose amplifier is gone now (its link lost, not yet restored): why, in a sentence
   * for a person. Absent while the device is there.
   */
  readonly lost?: string;
  /**
   * A live device whose source sends faster or slower than the rate it declares (the rate guard,
   * device/live/rate-guard.ts): what was measured, in a sentence for a person. Absent otherwise.
   */
  readonly rateMismatch?: string;
  /** A live device's link since it opened: samples lost, and what its driver counted. */
  readonly amplifier?: AmplifierStatus;
}

/** The counts of a live device's link (GET /system/status `amplifier`). */
export interface AmplifierStatus {
  /**
   * Samples per channel, at the amplifier's rate, that it produced and that never arrived since
   * the device opened (never filled in; each loss is also a `samples_lost` event).
   */
  readonly lostSamples: number;
  /** What the driver counted on its wire (Cyton: `tornPackets`, `skippedBytes`, `resyncs`). */
  readonly counters: Readonly<Record<string, number>>;
}

export interface DeviceInfo {
  /** `simulated`, `replay`, or a live amplifier's driver (`cyton`, `lsl`). */
  readonly kind: string;
  readonly model: string;
  /** Hardware revision, for GET /system/version's `hardware`. */
  readonly hardware: string;
  readonly firmware: string;
  readonly serial: string;
  /**
   * The replay device's file: which of its signals are played as which electrode, which are
   * dropped and why (GET /system/status answers it as `replay`).
   */
  readonly recording?: ReplayRecordingInfo;
  /** A live device's source of samples, in words (`/dev/ttyUSB0`, `LSL stream 'obci_eeg1' ...`). */
  readonly source?: string;
}

// ---------------------------------------------------------------------------------------------
// The headset

export interface Headset {
  /**
   * The device's time source. Pacing that belongs with the device (the interval of impedance
   * sessions) reads it too, so a device on a manual clock drives that pacing as well.
   */
  readonly clock: DeviceClock;
  readonly eeg: EegAcquisition;
  // The parts below are the device's only where it has them (a live amplifier has EEG and perhaps
  // impedance and a battery): absent otherwise, never a stand-in. `capabilities.ts` lists them
  // and gives one to a caller or refuses with `DeviceNotSupportedError` (`requirePart`).
  readonly impedance?: ImpedanceMeter;
  readonly motors?: MotorController;
  readonly leds?: LedController;
  readonly imu?: Imu;
  readonly power?: PowerSupply;
  /**
   * The device's thermal model, where its temperatures are modelled (the simulated and replay
   * headsets); absent on a device whose every temperature is a sensor's (a live amplifier).
   */
  readonly thermal?: ThermalModel;
  readonly bus?: PeripheralBus;
  /** System, impedance (kΩ) and quality events. */
  onEvent(listener: (event: DeviceEvent) => void): Unsubscribe;
  status(): DeviceStatus;
  info(): DeviceInfo;
  /**
   * The simulated wearer's eyes (what they look at, eyes closed): the simulated headset's only,
   * for POST /simulator/stimulus; absent on every other device (the replay device included).
   */
  readonly wearer?: SimulatedWearer;
  /** Stops acquisition and motors, cancels timers, drops listeners. Safe to call twice. */
  close(): Promise<void>;
}
