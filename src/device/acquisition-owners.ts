/**
 * Who holds EEG acquisition, the same for every acquisition (the software-paced engine of the
 * simulated and replay devices, a live amplifier's): each owner (`client`, `streams`) starts and
 * stops its own hold; the first start begins a run and the last stop ends it; a start is refused
 * once the device is closed and, for a new run, while an impedance measurement runs or waits
 * (naming whose); a reset is refused while streams hold a running acquisition unless forced. It also
 * counts the run's samples, so that `state()` is answered here.
 *
 * How a run begins and ends (a timer on the device clock, a driver's start and stop) is the
 * acquisition's: these methods say when, the acquisition does it.
 */
import { impedanceBusy, streamsHoldAcquisition } from './busy.js';
import { DeviceUnavailableError } from './errors.js';
import type { AcquisitionOwner, AcquisitionState, EegConfig } from './headset.js';

export interface AcquisitionOwnersHooks {
  /** True while an impedance measurement runs or waits: a new run cannot start then. */
  measuringImpedance(): boolean;
  /** Who the running impedance measurement is for, when it said (named in the 409). */
  impedanceHolder?: () => string | undefined;
}

/** Whether two configurations are the same (a change to the same one changes nothing). */
export function sameEegConfig(a: EegConfig, b: EegConfig): boolean {
  return (
    a.gain === b.gain &&
    a.samplingFrequency === b.samplingFrequency &&
    a.channels.length === b.channels.length &&
    a.channels.every((e, i) => e === b.channels[i])
  );
}

export class AcquisitionOwners {
  private readonly owners = new Set<AcquisitionOwner>();
  private samples = 0;
  private closed = false;

  constructor(private readonly hooks: AcquisitionOwnersHooks) {}

  /**
   * A start asked for by `owner`. Throws once closed. While a run goes on `owner` joins it and the
   * answer is true: nothing more to do. Otherwise throws while an impedance measurement holds the
   * front end, and answers false: the caller begins a run, then calls {@link started}.
   */
  join(owner: AcquisitionOwner, running: boolean): boolean {
    this.assertOpen();
    if (running) {
      this.owners.add(owner);
      return true;
    }
    if (this.hooks.measuringImpedance()) throw impedanceBusy(this.hooks.impedanceHolder?.());
    return false;
  }

  /** The run `owner` asked for begins: it holds acquisition, and the sample count starts again. */
  started(owner: AcquisitionOwner): void {
    this.owners.add(owner);
    this.samples = 0;
  }

  /** `owner` lets go; true when nobody holds acquisition any more (the caller ends the run). */
  leave(owner: AcquisitionOwner): boolean {
    this.owners.delete(owner);
    return this.owners.size === 0;
  }

  /**
   * A reset of the configuration: refused while streams hold the running acquisition (unless
   * `force`), else nobody holds acquisition any more (the caller ends the run).
   */
  reset(running: boolean, force: boolean | undefined): void {
    if (force !== true && running && this.owners.has('streams')) throw streamsHoldAcquisition();
    this.owners.clear();
  }

  /** For good: nobody holds acquisition, and every start from now on is refused. */
  close(): void {
    this.closed = true;
    this.owners.clear();
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** Throws `device_unavailable` once closed. */
  assertOpen(): void {
    if (this.closed) throw new DeviceUnavailableError('closed', 'The device is closed.');
  }

  /** `rows` more samples were delivered in this run. */
  count(rows: number): void {
    this.samples += rows;
  }

  /** The run's samples as counted where they are produced (another thread). */
  setCount(samples: number): void {
    this.samples = samples;
  }

  /** Samples delivered since the run began (or in the last run, once it ended). */
  sampleCount(): number {
    return this.samples;
  }

  state(running: boolean, config: EegConfig): AcquisitionState {
    return { streaming: running, owners: [...this.owners], samples: this.samples, config };
  }
}
