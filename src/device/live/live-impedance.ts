/**
 * Impedance of a live amplifier, measured the amplifier's way (`driver.measureImpedance`: a Cyton
 * drives its lead-off current through each channel in turn). Exclusive with EEG acquisition
 * exactly like the simulated meter: refused (`device_busy`) while acquisition runs, and acquisition
 * is refused while a measurement runs or waits. Requests are served one after another; an aborted
 * one leaves the queue (or stops the driver's measurement) at once.
 */
import type { Electrode } from '../../core/electrodes.js';
import { electrodeListOrThrow } from '../arguments.js';
import { acquisitionBusy } from '../busy.js';
import { DeviceArgumentError, DeviceUnavailableError } from '../errors.js';
import type { AcquisitionOwner, ElectrodeMap, ImpedanceMeter, MeasureOptions } from '../headset.js';
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

interface Request {
  readonly electrodes: readonly Electrode[];
  readonly resolve: (values: ElectrodeMap<number>) => void;
  readonly reject: (error: Error) => void;
  readonly signal: AbortSignal | undefined;
  readonly holder: string | undefined;
  readonly onAbort: () => void;
  /** Stops the driver's measurement when this request runs. */
  readonly controller: AbortController;
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('The impedance measurement was aborted.');
}

export class LiveImpedanceMeter implements ImpedanceMeter {
  private readonly queue: Request[] = [];
  private closed = false;

  constructor(
    private readonly measureOn: Measure,
    private readonly ms: number | undefined,
    private readonly hooks: LiveImpedanceHooks,
  ) {}

  measuring(): boolean {
    return this.queue.length > 0;
  }

  measuringFor(): string | undefined {
    return this.queue[0]?.holder;
  }

  measurementMs(): number {
    return this.ms ?? DEFAULT_MEASUREMENT_MS;
  }

  measure(electrodes?: readonly string[], options: MeasureOptions = {}): Promise<ElectrodeMap<number>> {
    return new Promise((resolve, reject) => {
      const { signal } = options;
      const mapped = this.hooks.mapped();
      const list = electrodes === undefined ? [...mapped] : electrodeListOrThrow(electrodes, 'channels');
      const missing = list.filter((e) => !mapped.includes(e));
      if (missing.length > 0) {
        throw new DeviceArgumentError(
          `${this.hooks.deviceName} has no channel played as ${missing.join(', ')}, so it cannot measure ${missing.length > 1 ? 'their' : 'its'} impedance; it measures ${mapped.join(', ')}.`,
          { field: 'channels', value: missing[0], allowed: [...mapped] },
        );
      }
      if (this.closed) throw new DeviceUnavailableError('closed', 'The device is closed.');
      const owners = this.hooks.acquisitionOwners();
      if (owners.length > 0) throw acquisitionBusy(owners, 'measuring impedance');
      if (signal?.aborted === true) throw abortReason(signal);
      const request: Request = {
        electrodes: list,
        resolve,
        reject,
        signal,
        holder: options.holder,
        controller: new AbortController(),
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
    this.closed = true;
    for (const request of this.queue.splice(0)) {
      request.signal?.removeEventListener('abort', request.onAbort);
      request.controller.abort();
      request.reject(new DeviceUnavailableError('closed', 'The device was closed during the measurement.'));
    }
  }

  private begin(): void {
    const request = this.queue[0];
    if (request === undefined) return;
    this.measureOn(request.electrodes, request.controller.signal).then(
      (values) => {
        if (this.queue[0] !== request) return;
        this.finish(request);
        this.hooks.onMeasured(values);
        request.resolve(values);
      },
      (error: unknown) => {
        if (this.queue[0] !== request) return;
        this.finish(request);
        request.reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  }

  private finish(request: Request): void {
    this.queue.shift();
    request.signal?.removeEventListener('abort', request.onAbort);
    this.begin();
  }

  private abort(request: Request): void {
    const index = this.queue.indexOf(request);
    if (index < 0) return;
    this.queue.splice(index, 1);
    if (index === 0) {
      request.controller.abort();
      this.begin();
    }
    request.reject(abortReason(request.signal as AbortSignal));
  }
}
