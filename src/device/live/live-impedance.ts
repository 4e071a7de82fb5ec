/**
 * Impedance of a live amplifier, measured the amplifier's way (`driver.measureImpedance`: a Cyton
 * drives its lead-off current through each channel in turn). Exclusive with EEG acquisition
 * exactly like the simulated meter, through the same queue (../measurement-queue.ts): refused
 * (`device_busy`) while acquisition runs, and acquisition is refused while a measurement runs or
 * waits. Requests are served one after another; an aborted one leaves the queue (or stops the
 * driver's measurement) at once.
 */
import type { Electrode } from '../../core/electrodes.js';
import { electrodeListOrThrow } from '../arguments.js';
import { DeviceArgumentError } from '../errors.js';
import type { AcquisitionOwner, ElectrodeMap, ImpedanceMeter, MeasureOptions } from '../headset.js';
import { MeasurementQueue } from '../measurement-queue.js';
import type { LiveEegDriver } from './driver.js';

/** ms assumed for one measurement when the driver does not say. */
const DEFAULT_MEASUREMENT_MS = 1000;

type Measure = NonNullable<LiveEegDriver['measureImpedance']>;

export interface LiveImpedanceHooks {
  readonly deviceName: string;
  /** The electrodes the amplifier's channels are played as. */
  mapped(): readonly Electrode[];
  acquisitionOwners(): readonly AcquisitionOwner[];
  onMeasured(values: ElectrodeMap<number>): void;
}

export class LiveImpedanceMeter implements ImpedanceMeter {
  private readonly queue: MeasurementQueue;

  constructor(
    measureOn: Measure,
    private readonly ms: number | undefined,
    private readonly hooks: LiveImpedanceHooks,
  ) {
    this.queue = new MeasurementQueue({
      start: (electrodes, done, fail) => {
        const controller = new AbortController();
        measureOn(electrodes, controller.signal).then(done, (error: unknown) => {
          fail(error instanceof Error ? error : new Error(String(error)));
        });
        return () => {
          controller.abort();
        };
      },
      acquisitionOwners: () => hooks.acquisitionOwners(),
      onMeasured: (values) => {
        hooks.onMeasured(values);
      },
    });
  }

  measuring(): boolean {
    return this.queue.measuring();
  }

  measuringFor(): string | undefined {
    return this.queue.holder();
  }

  measurementMs(): number {
    return this.ms ?? DEFAULT_MEASUREMENT_MS;
  }

  measure(electrodes?: readonly string[], options: MeasureOptions = {}): Promise<ElectrodeMap<number>> {
    return this.queue.submit(() => this.electrodesOrThrow(electrodes), options);
  }

  /** Device close: every waiting or running measurement fails with `device_unavailable`. */
  close(): void {
    this.queue.close();
  }

  /** The electrodes asked for (all the amplifier's when omitted); one it does not play is refused. */
  private electrodesOrThrow(electrodes: readonly string[] | undefined): readonly Electrode[] {
    const mapped = this.hooks.mapped();
    const list = electrodes === undefined ? [...mapped] : electrodeListOrThrow(electrodes, 'channels');
    const missing = list.filter((e) => !mapped.includes(e));
    if (missing.length > 0) {
      throw new DeviceArgumentError(
        `${this.hooks.deviceName} has no channel played as ${missing.join(', ')}, so it cannot measure ${missing.length > 1 ? 'their' : 'its'} impedance; it measures ${mapped.join(', ')}.`,
        { field: 'channels', value: missing[0], allowed: [...mapped] },
      );
    }
    return list;
  }
}
