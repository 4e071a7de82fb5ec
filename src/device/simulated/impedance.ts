/**
 * Impedance measurement as the ADS1299's AC lead-off detection does it: a small test current at
 * 31.25 Hz is injected into every electrode at once and each channel's response is demodulated
 * over the same window, so a measurement takes the same time for one electrode or all 21
 * (`IMPEDANCE_SETUP_MS` to switch the current on and let the inputs settle, plus
 * `IMPEDANCE_WINDOW_MS`, two periods of the excitation: {@link IMPEDANCE_MEASUREMENT_MS} in all).
 * It cannot run during EEG acquisition, whose samples the test current would swamp. Concurrent
 * requests are served one after another; an aborted request leaves the queue (or switches the
 * current off) at once, so the device is free for acquisition the moment the abort returns.
 */
import { DeviceUnavailableError } from '../errors.js';
import { acquisitionBusy } from '../busy.js';
import type { DeviceClock, TimerHandle } from '../clock.js';
import type { Electrode } from '../../core/electrodes.js';
import type { AcquisitionOwner, ElectrodeMap, ImpedanceMeter, MeasureOptions } from '../headset.js';
import { electrodeListOrThrow } from '../arguments.js';
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
  closed(): boolean;
}

interface Request {
  readonly electrodes: readonly Electrode[];
  readonly resolve: (values: ElectrodeMap<number>) => void;
  readonly reject: (error: Error) => void;
  readonly signal: AbortSignal | undefined;
  readonly holder: string | undefined;
  readonly onAbort: () => void;
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('The impedance measurement was aborted.');
}

export class SimulatedImpedanceMeter implements ImpedanceMeter {
  /** Requests waiting for the current one (the head) to finish. */
  private readonly queue: Request[] = [];
  private timer: TimerHandle | undefined;

  constructor(
    private readonly clock: DeviceClock,
    private readonly random: Random,
    private readonly hooks: ImpedanceMeterHooks,
  ) {}

  measuring(): boolean {
    return this.queue.length > 0;
  }

  /** Who the running measurement is for (its `holder`), when it said. */
  measuringFor(): string | undefined {
    return this.queue[0]?.holder;
  }

  measurementMs(): number {
    return IMPEDANCE_MEASUREMENT_MS;
  }

  measure(electrodes?: readonly string[], options: MeasureOptions = {}): Promise<ElectrodeMap<number>> {
    return new Promise((resolve, reject) => {
      const { signal } = options;
      const list = electrodeListOrThrow(electrodes, 'channels');
      if (this.hooks.closed()) throw new DeviceUnavailableError('closed', 'The device is closed.');
      const owners = this.hooks.acquisitionOwners();
      if (owners.length > 0) throw acquisitionBusy(owners, 'measuring impedance');
      if (signal?.aborted === true) throw abortReason(signal);
      const request: Request = {
        electrodes: list,
        resolve,
        reject,
        signal,
        holder: options.holder,
        onAbort: () => {
          this.abort(request);
        },
      };
      signal?.addEventListener('abort', request.onAbort, { once: true });
      // Queued at once, so that an acquisition asked for right after this call is refused.
      this.queue.push(request);
      if (this.queue.length === 1) this.begin();
    });
  }

  /** Device close: every waiting or running measurement fails with `device_unavailable`. */
  close(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    for (const request of this.queue.splice(0)) {
      request.signal?.removeEventListener('abort', request.onAbort);
      request.reject(new DeviceUnavailableError('closed', 'The device was closed during the measurement.'));
    }
  }

  /** Starts the request at the head of the queue. */
  private begin(): void {
    const request = this.queue[0];
    if (request === undefined) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.queue.shift();
      request.signal?.removeEventListener('abort', request.onAbort);
      const values: ElectrodeMap<number> = {};
      for (const electrode of request.electrodes) {
        const truth = this.hooks.trueImpedance(electrode);
        values[electrode] = Math.max(1, Math.round(truth * (1 + MEASUREMENT_NOISE * this.random.normal())));
      }
      this.hooks.onMeasured(values);
      request.resolve(values);
      this.begin();
    }, IMPEDANCE_MEASUREMENT_MS);
  }

  /** Drops a request: a waiting one leaves the queue, the running one switches the current off. */
  private abort(request: Request): void {
    const index = this.queue.indexOf(request);
    if (index < 0) return;
    this.queue.splice(index, 1);
    if (index === 0) {
      if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
      this.timer = undefined;
      this.begin();
    }
    request.reject(abortReason(request.signal as AbortSignal));
  }
}
