/**
 * A live amplifier read in the device's thread, seen from the main thread: a `LiveEegDriver` whose
 * calls go to the driver the thread holds (thread-live.ts) as requests, answered with the driver's
 * result or its error as the same catalogue error, and whose state the live headset reads
 * synchronously (info, channels, rate, range, gain, battery, counters) as the thread last sent it.
 * It pushes no samples here: the thread frames them and writes them to the stream workers' ports
 * (`runs`, the live acquisition's `LiveRuns`), and to this thread only while a listener here wants
 * frames. The live headset (live/live-headset.ts) is the same on it as on a driver read here.
 *
 * A thread that dies (out of memory) takes the driver with it: the link is reported lost, a run
 * going on ends as a failure, and every later call answers device_unavailable.
 */
import type { Electrode, ElectrodeMap } from '../../core/electrodes.js';
import { ListenerSet, type Unsubscribe } from '../../core/listener-set.js';
import { DeviceUnavailableError } from '../errors.js';
import type { BatteryStatus, Headset } from '../headset.js';
import type {
  LiveChannel,
  LiveDriverInfo,
  LiveEegDriver,
  LiveLinkEvent,
  LiveSamples,
} from '../live/driver.js';
import type { LiveRuns, LiveRunsHooks } from '../live/live-acquisition.js';
import { type LiveHeadsetOptions, openLiveHeadset } from '../live/live-headset.js';
import { DeviceThread } from './device-thread.js';
import type {
  LiveDriverParts,
  LiveDriverState,
  LiveThreadEvent,
  LiveThreadSource,
} from './thread-protocol.js';

export class ThreadLiveDriver implements LiveEegDriver {
  setGain?: (gain: number) => Promise<void>;
  gain?: () => number;
  measureImpedance?: (
    electrodes: readonly Electrode[],
    signal?: AbortSignal,
  ) => Promise<ElectrodeMap<number>>;
  impedanceMeasurementMs?: () => number;
  battery?: () => BatteryStatus;
  counters?: () => Readonly<Record<string, number>>;

  private readonly thread: DeviceThread;
  private state: LiveDriverState | undefined;
  private readonly links = new ListenerSet<LiveLinkEvent>();
  private hooks: LiveRunsHooks | undefined;
  private rateProblem: string | undefined;
  /** Why the driver is gone (its thread died), once it is. */
  private gone: Error | undefined;

  constructor(
    entry: URL,
    private readonly source: LiveThreadSource,
    private readonly log: (message: string) => void,
  ) {
    this.thread = new DeviceThread(
      { entry, source: () => source },
      {
        frame: (frame) => {
          this.hooks?.frame(frame);
        },
        markers: () => undefined,
        failed: (error) => {
          this.died(error);
        },
        live: (event) => {
          this.heard(event);
        },
      },
    );
  }

  async open(): Promise<void> {
    const parts = await this.ask<LiveDriverParts>({ kind: 'open' });
    if (parts.setGain)
      this.setGain = async (gain) => {
        await this.ask({ kind: 'setGain', gain });
      };
    if (parts.gain) this.gain = () => this.now().gain ?? 1;
    if (parts.measureImpedance)
      this.measureImpedance = (electrodes, signal) =>
        this.ask({ kind: 'measureImpedance', electrodes: [...electrodes] }, signal);
    const ms = parts.impedanceMeasurementMs;
    if (ms !== undefined) this.impedanceMeasurementMs = () => ms;
    if (parts.battery) this.battery = () => this.now().battery as BatteryStatus;
    if (parts.counters) this.counters = () => this.now().counters ?? {};
  }

  info(): LiveDriverInfo {
    return (
      this.state?.info ?? {
        kind: this.source.device,
        model: `${this.source.device} device`,
        hardware: 'unknown',
        firmware: 'unknown',
        serial: '',
        source: this.source.argument,
      }
    );
  }

  channels(): readonly LiveChannel[] {
    return this.state?.channels ?? [];
  }

  sampleRate(): number {
    return this.state?.sampleRate ?? 0;
  }

  range(): number | undefined {
    return this.state?.range;
  }

  async start(): Promise<void> {
    await this.ask({ kind: 'start' });
  }

  async stop(): Promise<void> {
    if (this.gone !== undefined) return;
    await this.ask({ kind: 'stop' });
  }

  /** Never: the samples are framed in the device's thread (`runs`). */
  onSamples(_listener: (samples: LiveSamples) => void): Unsubscribe {
    return () => undefined;
  }

  onLink(listener: (event: LiveLinkEvent) => void): Unsubscribe {
    return this.links.add(listener);
  }

  async close(): Promise<void> {
    try {
      if (this.gone === undefined) await this.ask({ kind: 'close' });
    } finally {
      this.thread.close();
      this.links.clear();
    }
  }

  /** The live acquisition's runs, made in the device's thread. */
  runs(hooks: LiveRunsHooks): LiveRuns {
    this.hooks = hooks;
    return {
      begin: (plan, fresh) => {
        if (fresh) this.rateProblem = undefined;
        this.thread.beginLive(plan, fresh);
      },
      end: () => {
        this.rateProblem = undefined;
        return this.thread.end(0);
      },
      rateProblem: () => this.rateProblem,
      framePort: () => this.thread.openPort(),
      streamThread: () => (this.thread.open ? this.thread : undefined),
      framesWanted: (wanted) => {
        this.thread.wantFrames(wanted);
      },
      samples: () => this.thread.samples(),
    };
  }

  /** The state the thread sent with its answer to `open`, and since. */
  private now(): LiveDriverState {
    if (this.state === undefined) throw new Error('the live driver is not open');
    return this.state;
  }

  private ask<T>(request: Parameters<DeviceThread['request']>[0], signal?: AbortSignal): Promise<T> {
    if (this.gone !== undefined)
      return Promise.reject(new DeviceUnavailableError('disconnected', this.gone.message));
    return this.thread.request<T>(request, signal);
  }

  private heard(event: LiveThreadEvent): void {
    switch (event.kind) {
      case 'state':
        this.state = event.state;
        return;
      case 'link':
        this.links.emit(event.event);
        return;
      case 'rows-lost':
        this.hooks?.rowsLost(event.rows);
        return;
      case 'rate':
        this.rateProblem = event.verdict.kind === 'mismatch' ? event.verdict.message : undefined;
        this.hooks?.rate(event.verdict);
        return;
      case 'log':
        this.log(event.message);
        return;
    }
  }

  private died(error: Error): void {
    if (this.gone !== undefined) return;
    this.gone = new Error(
      `the device's thread ended (${error.message}); restart headsetd to read the device again`,
    );
    this.links.emit({ kind: 'lost', message: this.gone.message });
    this.hooks?.failed(this.gone);
  }
}

/**
 * The live headset of `source`, its driver opened and read in the device's thread started from
 * `entry` (service/device-thread-entry.ts). Rejects as `openLiveHeadset` does, and ends the thread then.
 */
export async function openThreadLiveHeadset(
  entry: URL,
  source: LiveThreadSource,
  log: (message: string) => void,
  options: LiveHeadsetOptions = {},
): Promise<Headset> {
  const driver = new ThreadLiveDriver(entry, source, log);
  try {
    return await openLiveHeadset(driver, {
      ...options,
      runs: (hooks) => driver.runs(hooks),
    });
  } catch (error) {
    await driver.close().catch(() => undefined);
    throw error;
  }
}
