/**
 * The request queue of an impedance meter, the same for every device (the simulated front end's
 * lead-off measurement, a live amplifier's driver): requests are served one after another in the
 * order they came; the one at the head runs, the others wait. An aborted request (its
 * `AbortSignal`) leaves at once: a waiting one leaves the queue, the running one is stopped and the
 * next starts, so the device is free for acquisition the moment the abort returns. A measurement
 * is refused (`device_busy`, naming acquisition's owners) while EEG acquisition runs, and the queue
 * says whose measurement runs (`holder`) so that an acquisition refused meanwhile can name it.
 * Closing fails every running or waiting request with `device_unavailable`.
 *
 * How one measurement is taken is the device's: `start` begins it and reports once through `done`
 * or `fail`; the function it answers stops it early (an abort, a close), after which its report is
 * ignored.
 */
import type { Electrode } from '../core/electrodes.js';
import { acquisitionBusy } from './busy.js';
import { DeviceUnavailableError } from './errors.js';
import type { AcquisitionOwner, ElectrodeMap, MeasureOptions } from './headset.js';

/** Stops a running measurement; its `done`/`fail` are ignored afterwards. */
export type StopMeasurement = () => void;

export interface MeasurementQueueHooks {
  /** Begins measuring `electrodes`; calls `done` or `fail` once, unless stopped first. */
  start(
    electrodes: readonly Electrode[],
    done: (values: ElectrodeMap<number>) => void,
    fail: (error: Error) => void,
  ): StopMeasurement;
  /** Who holds EEG acquisition; empty when it does not run. */
  acquisitionOwners(): readonly AcquisitionOwner[];
  /** A measurement finished with these values (Ω), before its caller hears of them. */
  onMeasured(values: ElectrodeMap<number>): void;
}

interface Request {
  readonly electrodes: readonly Electrode[];
  readonly resolve: (values: ElectrodeMap<number>) => void;
  readonly reject: (error: Error) => void;
  readonly signal: AbortSignal | undefined;
  readonly holder: string | undefined;
  readonly onAbort: () => void;
  /** Set once the request runs. */
  stop?: StopMeasurement;
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('The impedance measurement was aborted.');
}

export class MeasurementQueue {
  /** The running request (the head) and those waiting behind it. */
  private readonly queue: Request[] = [];
  private closed = false;

  constructor(private readonly hooks: MeasurementQueueHooks) {}

  /** Whether a measurement runs or waits. */
  measuring(): boolean {
    return this.queue.length > 0;
  }

  /** Who the running measurement is for (its `holder`), when it said. */
  holder(): string | undefined {
    return this.queue[0]?.holder;
  }

  /**
   * Queues a measurement of the electrodes `electrodes()` answers (it validates the caller's list:
   * what it throws rejects the promise, before any other check).
   */
  submit(
    electrodes: () => readonly Electrode[],
    options: MeasureOptions = {},
  ): Promise<ElectrodeMap<number>> {
    return new Promise((resolve, reject) => {
      const { signal } = options;
      const list = electrodes();
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

  /** Device close: every running or waiting measurement fails with `device_unavailable`. */
  close(): void {
    this.closed = true;
    this.queue[0]?.stop?.();
    for (const request of this.queue.splice(0)) {
      request.signal?.removeEventListener('abort', request.onAbort);
      request.reject(new DeviceUnavailableError('closed', 'The device was closed during the measurement.'));
    }
  }

  /** Starts the request at the head of the queue. */
  private begin(): void {
    const request = this.queue[0];
    if (request === undefined) return;
    request.stop = this.hooks.start(
      request.electrodes,
      (values) => {
        if (!this.finish(request)) return;
        this.hooks.onMeasured(values);
        request.resolve(values);
        this.begin();
      },
      (error) => {
        if (!this.finish(request)) return;
        request.reject(error);
        this.begin();
      },
    );
  }

  /** Takes the running request off the queue; false when it no longer runs (aborted, closed). */
  private finish(request: Request): boolean {
    if (this.queue[0] !== request) return false;
    this.queue.shift();
    request.signal?.removeEventListener('abort', request.onAbort);
    return true;
  }

  /** Drops a request: a waiting one leaves the queue, the running one is stopped. */
  private abort(request: Request): void {
    const index = this.queue.indexOf(request);
    if (index < 0) return;
    this.queue.splice(index, 1);
    if (index === 0) {
      request.stop?.();
      this.begin();
    }
    request.reject(abortReason(request.signal as AbortSignal));
  }
}
