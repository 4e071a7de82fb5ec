/**
 * The live headset: a `Headset` built on any `LiveEegDriver` (driver.ts), an amplifier that
 * pushes real samples (an OpenBCI Cyton on a serial port, an LSL stream). It has what the
 * amplifier has and nothing else (docs/devices.md §Capabilities):
 * - EEG, with the simulated device's acquisition semantics, framed from the driver's blocks as
 *   they arrive (live-acquisition.ts, live-framer.ts);
 * - impedance, when the driver measures it (live-impedance.ts);
 * - a battery, when the driver reads one;
 * - no motors, LEDs, IMU or peripheral bus: those parts are absent, and a path that needs one
 *   answers not_supported naming the device (../capabilities.ts).
 *
 * Events: acquisition started/stopped, `samples_lost` with the count of rows that never arrived
 * (also summed in status `amplifier.lostSamples`, beside the driver's own counters),
 * `device_lost`/`device_restored` as the driver's link drops and comes back,
 * `rate_mismatch`/`rate_recovered` as the rate guard finds the source off its declared rate and
 * back (rate-guard.ts; status `rateMismatch` meanwhile, and /healthz degraded), and impedance
 * measurements (kΩ). It has no thermal model: every temperature it reports is a sensor's (the
 * battery's, when the driver reads one; the CPU's is the machine's own sensor, or none).
 */
import { type DeviceClock, systemClock } from '../clock.js';
import { DeviceArgumentError } from '../errors.js';
import {
  type DeviceEvent,
  type EventLevel,
  ListenerSet,
  type SystemEventType,
  type Unsubscribe,
} from '../events.js';
import type {
  BatteryStatus,
  DeviceInfo,
  DeviceStatus,
  ElectrodeMap,
  Headset,
  ImpedanceMeter,
  PowerSupply,
} from '../headset.js';
import { type LiveEegDriver, liveDeviceName } from './driver.js';
import { LiveAcquisition, type LiveRuns, type LiveRunsHooks } from './live-acquisition.js';
import { LiveImpedanceMeter } from './live-impedance.js';

export interface LiveHeadsetOptions {
  /** Time source of events (default the system clock). */
  readonly clock?: DeviceClock;
  /** Where errors thrown by frame and event listeners go (default: a process warning). */
  readonly onListenerError?: (error: unknown) => void;
  /**
   * Where the frames are made when the driver is held by another thread (the device's thread,
   * production/live-thread-driver.ts); absent: on this thread, from the driver's blocks.
   */
  readonly runs?: (hooks: LiveRunsHooks) => LiveRuns;
}

export { liveDeviceName } from './driver.js';

/** A battery the driver reads, with the threshold of the low-battery rule. */
function livePower(read: () => BatteryStatus): PowerSupply {
  let threshold = 15;
  return {
    battery: read,
    lowBatteryThreshold: () => threshold,
    setLowBatteryThreshold: (percent) => {
      if (typeof percent !== 'number' || !Number.isFinite(percent) || percent < 0 || percent > 100) {
        throw new DeviceArgumentError(
          `lowBatteryThreshold must be a number from 0 to 100; got ${JSON.stringify(percent)}.`,
          {
            field: 'lowBatteryThreshold',
            value: percent,
            min: 0,
            max: 100,
          },
        );
      }
      threshold = percent;
    },
  };
}

export class LiveHeadset implements Headset {
  readonly clock: DeviceClock;
  readonly eeg: LiveAcquisition;
  readonly impedance?: ImpedanceMeter;
  readonly power?: PowerSupply;
  /** The device in words (`The OpenBCI Cyton (/dev/ttyUSB0)`), as its not_supported answers name it. */
  readonly name: string;

  private readonly events: ListenerSet<DeviceEvent>;
  private readonly meter: LiveImpedanceMeter | undefined;
  private readonly unsubscribeLink: Unsubscribe;
  private closed = false;
  /** The sentence of the `device_lost` event while the link is down (GET /system/status, healthz). */
  private lost: string | undefined;
  /** Samples lost since the device opened (GET /system/status `amplifier.lostSamples`). */
  private lostSamples = 0;

  /** Use `openLiveHeadset`: the driver must be open (its channels and rate known). */
  constructor(
    private readonly driver: LiveEegDriver,
    options: LiveHeadsetOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.name = liveDeviceName(driver);
    this.events = new ListenerSet<DeviceEvent>(options.onListenerError);
    const measure = driver.measureImpedance?.bind(driver);
    this.meter =
      measure === undefined
        ? undefined
        : new LiveImpedanceMeter(measure, driver.impedanceMeasurementMs?.(), {
            deviceName: this.name,
            mapped: () => this.eeg.mappedElectrodes(),
            acquisitionOwners: () => (this.eeg.state().streaming ? this.eeg.state().owners : []),
            onMeasured: (values) => {
              this.emitImpedance(values);
            },
          });
    if (this.meter !== undefined) this.impedance = this.meter;
    this.eeg = new LiveAcquisition(
      driver,
      {
        deviceName: this.name,
        measuringImpedance: () => this.meter?.measuring() ?? false,
        impedanceHolder: () => this.meter?.measuringFor(),
        onStarted: (config) => {
          this.system(
            'acquisition_started',
            'info',
            `EEG acquisition started: ${config.channels.length} channels at ${config.samplingFrequency} Hz, gain ${config.gain}.`,
          );
        },
        onStopped: (samples) => {
          this.system('acquisition_stopped', 'info', `EEG acquisition stopped after ${samples} samples.`);
        },
        // Only where the frames are made in the device's thread, and that thread died.
        onFailed: (samples, error) => {
          this.system(
            'acquisition_stopped',
            'error',
            `EEG acquisition failed and stopped after ${samples} samples: ${error.message}`,
          );
        },
        onRowsLost: (rows) => {
          this.rowsLost(rows, 'before the next block that arrived');
        },
        onRate: (verdict) => {
          if (verdict.kind === 'mismatch') this.system('rate_mismatch', 'warning', verdict.message);
          else this.system('rate_recovered', 'info', verdict.message);
        },
        wallNow: () => this.clock.wallNow(),
        ...(options.onListenerError === undefined ? {} : { onListenerError: options.onListenerError }),
      },
      options.runs,
    );
    const battery = driver.battery?.bind(driver);
    if (battery !== undefined) this.power = livePower(battery);
    this.unsubscribeLink = driver.onLink((event) => {
      if (event.kind === 'lost') {
        this.lost = `${this.name} was lost: ${event.message}`;
        this.system('device_lost', 'error', this.lost);
      } else if (event.kind === 'restored') {
        this.lost = undefined;
        this.system('device_restored', 'info', `${this.name} is back: ${event.message}`);
      } else this.rowsLost(event.rows, event.message);
    });
  }

  onEvent(listener: (event: DeviceEvent) => void): Unsubscribe {
    return this.events.add(listener);
  }

  status(): DeviceStatus {
    const eeg = this.eeg.state();
    const measuring = this.meter?.measuring() ?? false;
    const battery = this.power?.battery();
    const rateMismatch = this.eeg.rateMismatch();
    return {
      state: measuring ? 'measuring_impedance' : eeg.streaming ? 'acquiring' : 'idle',
      eeg,
      impedance: { measuring },
      motors: { moving: [], stalled: [] },
      battery: battery === undefined ? null : { percent: battery.percent, isCharging: battery.isCharging },
      ...(this.lost === undefined ? {} : { lost: this.lost }),
      amplifier: { lostSamples: this.lostSamples, counters: { ...this.driver.counters?.() } },
      ...(rateMismatch === undefined ? {} : { rateMismatch }),
    };
  }

  info(): DeviceInfo {
    const { kind, model, hardware, firmware, serial, source } = this.driver.info();
    return { kind, model, hardware, firmware, serial, source };
  }

  /** Stops acquisition, ends measurements, releases the driver's wire. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const ended = this.eeg.close();
    this.meter?.close();
    this.unsubscribeLink();
    await ended;
    this.events.clear();
    await this.driver.close();
  }

  private rowsLost(rows: number, where: string): void {
    this.lostSamples += rows;
    this.system(
      'samples_lost',
      'warning',
      `${this.name} lost ${rows} sample${rows === 1 ? '' : 's'} per channel ${where}: they are not filled in; the next frame says discontinuity.`,
    );
  }

  private system(eventType: SystemEventType, level: EventLevel, message: string): void {
    this.events.emit({ type: 'system', timestamp: this.clock.wallNow(), eventType, level, message });
  }

  private emitImpedance(values: ElectrodeMap<number>): void {
    const data: Record<string, number> = {};
    for (const [electrode, ohms] of Object.entries(values)) data[electrode] = Math.round(ohms / 10) / 100;
    this.events.emit({ type: 'impedance', timestamp: this.clock.wallNow(), data });
  }
}

/**
 * Opens the driver (port, stream) and builds the live headset on it. Rejects with the driver's
 * error (device_unavailable) when the amplifier cannot be reached, and `validation_failed` when
 * none of its channels is played as an EEG electrode; the driver is closed again then.
 */
export async function openLiveHeadset(
  driver: LiveEegDriver,
  options: LiveHeadsetOptions = {},
): Promise<LiveHeadset> {
  await driver.open();
  try {
    return new LiveHeadset(driver, options);
  } catch (error) {
    await driver.close();
    throw error;
  }
}
