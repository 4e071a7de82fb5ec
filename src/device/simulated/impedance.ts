/**
 * Impedance measurement as the ADS1299's lead-off current source does it: a small test current
 * is injected and the electrode's voltage measured, one electrode after another. It takes time
 * (`IMPEDANCE_SETUP_MS` plus `IMPEDANCE_PER_ELECTRODE_MS` per electrode: about 50 ms for one,
 * about 350 ms for all 21) and cannot run during EEG acquisition, whose samples the test current
 * would swamp. Concurrent requests are served one after another.
 */
import { HeadsetdError } from '../../errors.js';
import type { DeviceClock } from '../clock.js';
import type { Electrode } from '../electrodes.js';
import type { ElectrodeMap, ImpedanceMeter } from '../headset.js';
import { electrodeListOrThrow } from '../validate.js';
import type { Random } from './random.js';

export const IMPEDANCE_SETUP_MS = 35;
export const IMPEDANCE_PER_ELECTRODE_MS = 15;
/** Relative RMS error of one measurement. */
const MEASUREMENT_NOISE = 0.02;

export interface ImpedanceMeterHooks {
  /** The contact model's true impedance (Ω) now. */
  trueImpedance(electrode: Electrode): number;
  acquiring(): boolean;
  /** A measurement finished with these values (Ω). */
  onMeasured(values: ElectrodeMap<number>): void;
  closed(): boolean;
}

export class SimulatedImpedanceMeter implements ImpedanceMeter {
  /** Measurements running or queued. */
  private pending = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly clock: DeviceClock,
    private readonly random: Random,
    private readonly hooks: ImpedanceMeterHooks,
  ) {}

  measuring(): boolean {
    return this.pending > 0;
  }

  measure(electrodes?: readonly string[]): Promise<ElectrodeMap<number>> {
    try {
      const list = electrodeListOrThrow(electrodes, 'channels');
      if (this.hooks.closed()) throw new HeadsetdError('device_unavailable', 'The device is closed.');
      if (this.hooks.acquiring()) {
        throw new HeadsetdError(
          'device_busy',
          'EEG acquisition is running; stop it (DELETE /system/sensors/eeg/stream and any eeg-source) before measuring impedance.',
        );
      }
      // Counted at once, so that an acquisition asked for right after this call is refused.
      this.pending++;
      const result = this.queue.then(() => this.run(list));
      this.queue = result.catch(() => undefined);
      return result.finally(() => {
        this.pending--;
      });
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private run(list: readonly Electrode[]): Promise<ElectrodeMap<number>> {
    const duration = IMPEDANCE_SETUP_MS + IMPEDANCE_PER_ELECTRODE_MS * list.length;
    return new Promise((resolve) => {
      this.clock.setTimeout(() => {
        const values: ElectrodeMap<number> = {};
        for (const electrode of list) {
          const truth = this.hooks.trueImpedance(electrode);
          values[electrode] = Math.max(1, Math.round(truth * (1 + MEASUREMENT_NOISE * this.random.normal())));
        }
        this.hooks.onMeasured(values);
        resolve(values);
      }, duration);
    });
  }
}
