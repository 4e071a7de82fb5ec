/**
 * A live amplifier for tests, behind the `LiveEegDriver` contract: it pushes blocks of known
 * values (row n, column c is `sampleValue(n, c)`, exact in float32), either on demand (`push`) or
 * paced by a clock (`blockRows` rows every `blockRows / rate` s while started), can lose rows,
 * drop and restore its link, and optionally set its gain and measure impedance.
 */
import { EEG_ELECTRODES, channelName, type Electrode, type ElectrodeMap } from '../../src/core/electrodes.js';
import { ListenerSet, type Unsubscribe } from '../../src/core/listener-set.js';
import type { DeviceClock, TimerHandle } from '../../src/device/clock.js';
import type {
  LiveChannel,
  LiveDriverInfo,
  LiveEegDriver,
  LiveLinkEvent,
  LiveSamples,
} from '../../src/device/live/driver.js';

/** The value of row `n` (counted from the driver's start, lost rows included) in column `c`. */
export function sampleValue(n: number, c: number): number {
  return (n % 4096) - 2048 + c / 8;
}

export interface FakeLiveDriverOptions {
  /** The channels, in column order (default the 19 EEG electrodes by their 10-20 names, then `AUX`). */
  readonly channels?: readonly LiveChannel[];
  /** Hz (default 250). */
  readonly rate?: number;
  /** Paces blocks of this many rows on `clock` while started (default: none, `push` only). */
  readonly blockRows?: number;
  readonly clock?: DeviceClock;
  /** Has `setGain`/`gain` (like a Cyton). */
  readonly gain?: boolean;
  /** Has `measureImpedance`, taking this many ms on `clock` (default none). */
  readonly impedanceMs?: number;
  /** `open` rejects with this error. */
  readonly openError?: Error;
}

export const FAKE_CHANNELS: readonly LiveChannel[] = [
  ...EEG_ELECTRODES.map((electrode: Electrode) => ({
    label: channelName(electrode),
    name: channelName(electrode),
    type: 'EEG' as const,
  })),
  { label: 'AUX', name: undefined, type: 'AUX', reason: 'not played in this test' },
];

export class FakeLiveDriver implements LiveEegDriver {
  readonly opened = { count: 0 };
  readonly gains: number[] = [];
  readonly channelList: readonly LiveChannel[];
  readonly rate: number;
  started = false;
  closed = false;
  setGain?: (gain: number) => Promise<void>;
  gain?: () => number;
  measureImpedance?: (
    electrodes: readonly Electrode[],
    signal?: AbortSignal,
  ) => Promise<ElectrodeMap<number>>;
  impedanceMeasurementMs?: () => number;
  /** The driver's wire counters (absent unless a test sets them). */
  counters?: () => Readonly<Record<string, number>>;
  private currentGain = 24;
  /** Rows produced since the start, lost ones included. */
  private produced = 0;
  private lostPending = 0;
  private startWall = 0;
  private timer: TimerHandle | undefined;
  private readonly samples = new ListenerSet<LiveSamples>();
  private readonly link = new ListenerSet<LiveLinkEvent>();

  constructor(private readonly options: FakeLiveDriverOptions = {}) {
    this.channelList = options.channels ?? FAKE_CHANNELS;
    this.rate = options.rate ?? 250;
    if (options.gain === true) {
      this.setGain = (gain) => {
        this.gains.push(gain);
        this.currentGain = gain;
        return Promise.resolve();
      };
      this.gain = () => this.currentGain;
    }
    const impedanceMs = options.impedanceMs;
    if (impedanceMs !== undefined) {
      const clock = this.clockOrThrow();
      this.impedanceMeasurementMs = () => impedanceMs;
      this.measureImpedance = (electrodes, signal) =>
        new Promise((resolve, reject) => {
          const timer = clock.setTimeout(() => {
            resolve(Object.fromEntries(electrodes.map((e, i) => [e, 5000 + 1000 * i])));
          }, impedanceMs);
          signal?.addEventListener('abort', () => {
            clock.clearTimeout(timer);
            reject(new Error('aborted'));
          });
        });
    }
  }

  open(): Promise<void> {
    this.opened.count++;
    return this.options.openError === undefined ? Promise.resolve() : Promise.reject(this.options.openError);
  }

  info(): LiveDriverInfo {
    return {
      kind: 'fake',
      model: 'Fake amplifier',
      hardware: 'fake rev 1',
      firmware: '0.0.1',
      serial: 'FAKE-1',
      source: 'the test',
    };
  }

  channels(): readonly LiveChannel[] {
    return this.channelList;
  }

  sampleRate(): number {
    return this.rate;
  }

  range(): number | undefined {
    return this.setGain === undefined ? undefined : 4_500_000 / this.currentGain;
  }

  start(): Promise<void> {
    this.started = true;
    this.produced = 0;
    this.lostPending = 0;
    this.startWall = this.options.clock?.wallNow() ?? 1_000_000;
    if (this.options.blockRows !== undefined) this.pace(this.options.blockRows);
    return Promise.resolve();
  }

  stop(): Promise<void> {
    this.started = false;
    if (this.timer !== undefined) this.options.clock?.clearTimeout(this.timer);
    this.timer = undefined;
    return Promise.resolve();
  }

  onSamples(listener: (samples: LiveSamples) => void): Unsubscribe {
    return this.samples.add(listener);
  }

  onLink(listener: (event: LiveLinkEvent) => void): Unsubscribe {
    return this.link.add(listener);
  }

  close(): Promise<void> {
    this.closed = true;
    return this.stop();
  }

  /** The time of row `n` of this run, as the block timestamps give it. */
  rowTime(n: number): number {
    return this.startWall + (n * 1000) / this.rate;
  }

  /** Pushes the next `rows` rows; `discontinuity` marks the block (a reset, a reconnection). */
  push(rows: number, discontinuity = false): LiveSamples {
    const width = this.channelList.length;
    const data = new Float32Array(rows * width);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < width; c++) data[r * width + c] = sampleValue(this.produced + r, c);
    }
    const block: LiveSamples = {
      data,
      rows,
      timestamp: this.rowTime(this.produced),
      lost: this.lostPending,
      discontinuity: discontinuity || this.lostPending > 0,
    };
    this.produced += rows;
    this.lostPending = 0;
    this.samples.emit(block);
    return block;
  }

  /** `rows` rows are produced by the amplifier and never arrive: the next block says so. */
  lose(rows: number): void {
    this.produced += rows;
    this.lostPending += rows;
  }

  dropLink(message = 'the cable was pulled'): void {
    this.link.emit({ kind: 'lost', message });
  }

  restoreLink(message = 'the amplifier answers again'): void {
    this.link.emit({ kind: 'restored', message });
  }

  private pace(rows: number): void {
    const clock = this.clockOrThrow();
    this.timer = clock.setTimeout(
      () => {
        this.timer = undefined;
        if (!this.started) return;
        this.push(rows);
        this.pace(rows);
      },
      (rows * 1000) / this.rate,
    );
  }

  private clockOrThrow(): DeviceClock {
    if (this.options.clock === undefined) throw new Error('FakeLiveDriver: this option needs a clock');
    return this.options.clock;
  }
}
