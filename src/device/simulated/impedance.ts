/**
 * Impedance measurement as the ADS1299's AC lead-off detection does it: a small test current at
 * 31.25 Hz is injected into every electrode at once and each channel's response is demodulated
 * over the same window, so a measurement takes the same time for one electrode or all 21
 * (`IMPEDANCE_SETUP_MS` to switch the current on and let the inputs settle, plus
 * `IMPEDANCE_WINDOW_MS`, two periods of the excitation: {@link IMPEDANCE_MEASUREMENT_MS} in all).
 * It cannot run during EEG acquisition, whose samples the test current would swamp. Requests go
 * through the meters' common queue (../measurement-queue.ts): one after another, and an aborted
 * request leaves the queue (or switches the current off) at once, so the device is free for
 * acquisition the moment the abort returns.
 */
import type { DeviceClock } from '../clock.js';
import type { Electrode } from '../../core/electrodes.js';
import type { AcquisitionOwner, ElectrodeMap, ImpedanceMeter, MeasureOptions } from '../headset.js';
import { electrodeListOrThrow } from '../arguments.js';
import { MeasurementQueue } from '../measurement-queue.js';
import type { Random } from './random.js';

/** ms to switch the lead-off current on and let the input filters settle. */
export const IMPEDANCE_SETUP_MS = 16;
/** ms of demodulation: two periods of the 31.25 Hz excitation, all channels at once. */
export const IMPEDANCE_WINDOW_MS = 64;
/** ms one measurement takes, whatever the number of electrodes. */
export const IMPEDANCE_MEASUREMENT_MS = IMPEDANCE_SETUP_MS + IMPEDANCE_WINDOW_MS;
/** Relative RMS error of one measurement. */
const MEASUREMENT_NOISE = 0.02;

export interface ImpedanceMeterHooks {
  /** The contact model's true impedance (Ω) now. */
  trueImpedance(electrode: Electrode): number;
  /** Who holds EEG acquisition; empty when it does not run. */
  acquisitionOwners(): readonly AcquisitionOwner[];
  /** A measurement finished with these values (Ω). */
  onMeasured(values: ElectrodeMap<number>): void;
}

export class SimulatedImpedanceMeter implements ImpedanceMeter {
  private readonly queue: MeasurementQueue;

  constructor(clock: DeviceClock, random: Random, hooks: ImpedanceMeterHooks) {
    this.queue = new MeasurementQueue({
      // The current runs for the whole measurement; the values are read when it ends.
      start: (electrodes, done) => {
        const timer = clock.setTimeout(() => {
          const values: ElectrodeMap<number> = {};
          for (const electrode of electrodes) {
            const truth = hooks.trueImpedance(electrode);
            values[electrode] = Math.max(1, Math.round(truth * (1 + MEASUREMENT_NOISE * random.normal())));
          }
          done(values);
        }, IMPEDANCE_MEASUREMENT_MS);
        return () => {
          clock.clearTimeout(timer);
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

  /** Who the running measurement is for (its `holder`), when it said. */
  measuringFor(): string | undefined {
    return this.queue.holder();
  }

  measurementMs(): number {
    return IMPEDANCE_MEASUREMENT_MS;
  }

  measure(electrodes?: readonly string[], options: MeasureOptions = {}): Promise<ElectrodeMap<number>> {
    return this.queue.submit(() => electrodeListOrThrow(electrodes, 'channels'), options);
  }

  /** Device close: every waiting or running measurement fails with `device_unavailable`. */
  close(): void {
    this.queue.close();
  }
}
