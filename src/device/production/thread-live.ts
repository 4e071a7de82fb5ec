/**
 * A live amplifier in the device's thread: the driver is made here from its kind and argument
 * (device/kinds.ts, the kind's `driver`), opened, started and stopped here as the main thread asks
 * (each request answered with its result, or its error as the same catalogue error), and its blocks
 * are framed here as they come (live/live-production.ts: the rate guard, a framer per run), so
 * that a frame wakes the main thread only when a listener there wants it. What the main thread
 * reads of the driver synchronously (its info, channels, rate, range, gain, battery, counters) is
 * sent to it when it changes; its link events, the rows it lost and the rate guard's verdicts as
 * they happen.
 */
import type { Electrode } from '../../core/electrodes.js';
import type { Frame } from '../../core/frame.js';
import { DeviceUnavailableError } from '../errors.js';
import { DEVICE_KINDS } from '../kinds.js';
import { type LiveEegDriver, liveDeviceName } from '../live/driver.js';
import { LiveProduction } from '../live/live-production.js';
import { errorToWire } from './thread-errors.js';
import type {
  FromDeviceThread,
  LiveDriverParts,
  LiveDriverState,
  LiveRequest,
  LiveThreadEvent,
  LiveThreadSource,
  ToDeviceThread,
} from './thread-protocol.js';

/** What the thread's entry gives the live work. */
export interface LiveThreadIo {
  /** Writes a frame of the run to its readers, counting its rows. */
  write(frame: Frame, rows: number): void;
  /** A new run: the sample count starts at 0. */
  fresh(): void;
  nextSeq(): number;
  post(message: FromDeviceThread): void;
  wallNow(): number;
}

/** How often at most the driver's state is compared with what the main thread holds, while blocks come. */
const STATE_CHECK_MS = 1000;

export class LiveThreadWork {
  private driver: Promise<LiveEegDriver> | undefined;
  /** The driver, once open. */
  private current: LiveEegDriver | undefined;
  private production: LiveProduction | undefined;
  /** The state last sent, as text. */
  private sentState = '';
  private lastCheck = 0;
  private readonly measuring = new Map<number, AbortController>();

  constructor(
    private readonly source: LiveThreadSource,
    private readonly io: LiveThreadIo,
  ) {}

  handle(message: ToDeviceThread): void {
    switch (message.kind) {
      case 'request':
        void this.answer(message.id, message.request);
        return;
      case 'abort':
        this.measuring.get(message.id)?.abort();
        return;
      case 'live-begin':
        if (message.fresh) {
          this.io.fresh();
          this.production?.begin(message.plan);
        } else this.production?.change(message.plan);
        return;
      case 'end':
        this.production?.end();
        if (message.id !== undefined) this.io.post({ kind: 'ended', id: message.id });
        return;
      default:
        return;
    }
  }

  private async answer(id: number, request: LiveRequest): Promise<void> {
    try {
      const value = await this.run(id, request);
      this.sendState();
      this.io.post({ kind: 'answer', id, ...(value === undefined ? {} : { value }) });
    } catch (error) {
      this.sendState();
      this.io.post({ kind: 'answer', id, error: errorToWire(error) });
    }
  }

  private async run(id: number, request: LiveRequest): Promise<unknown> {
    if (request.kind === 'open') return this.open();
    const driver = await this.opened();
    switch (request.kind) {
      case 'start':
        return driver.start();
      case 'stop':
        return driver.stop();
      case 'setGain':
        return driver.setGain?.(request.gain);
      case 'measureImpedance': {
        const controller = new AbortController();
        this.measuring.set(id, controller);
        try {
          return await driver.measureImpedance?.(
            request.electrodes as readonly Electrode[],
            controller.signal,
          );
        } finally {
          this.measuring.delete(id);
        }
      }
      case 'close':
        this.production?.close();
        return driver.close();
    }
  }

  private opened(): Promise<LiveEegDriver> {
    if (this.driver === undefined)
      throw new DeviceUnavailableError('disconnected', 'The device is not open: open it first.');
    return this.driver;
  }

  private async open(): Promise<LiveDriverParts> {
    const { device, argument, lsl } = this.source;
    const make = DEVICE_KINDS.find((kind) => kind.name === device)?.driver;
    if (make === undefined) throw new Error(`the device '${device}' cannot be read in the device's thread`);
    const opening = make(argument, {
      ...(lsl === undefined ? {} : { lsl }),
      log: (message) => {
        this.event({ kind: 'log', message });
      },
    });
    this.driver = opening;
    const driver = await opening;
    await driver.open();
    this.current = driver;
    driver.onLink((event) => {
      this.sendState();
      this.event({ kind: 'link', event });
    });
    this.production = new LiveProduction(driver, liveDeviceName(driver), {
      frame: (frame, rows) => {
        this.io.write(frame, rows);
        const now = this.io.wallNow();
        if (now - this.lastCheck >= STATE_CHECK_MS) {
          this.lastCheck = now;
          this.sendState();
        }
      },
      rowsLost: (rows) => {
        this.event({ kind: 'rows-lost', rows });
      },
      rate: (verdict) => {
        this.event({ kind: 'rate', verdict });
      },
      nextSeq: () => this.io.nextSeq(),
      wallNow: () => this.io.wallNow(),
    });
    return {
      setGain: driver.setGain !== undefined,
      gain: driver.gain !== undefined,
      measureImpedance: driver.measureImpedance !== undefined,
      ...(driver.impedanceMeasurementMs === undefined
        ? {}
        : { impedanceMeasurementMs: driver.impedanceMeasurementMs() }),
      battery: driver.battery !== undefined,
      counters: driver.counters !== undefined,
    };
  }

  /** Sends the driver's state when it differs from what the main thread holds. */
  private sendState(): void {
    const driver = this.current;
    if (driver === undefined) return;
    const range = driver.range();
    const state: LiveDriverState = {
      info: driver.info(),
      channels: driver.channels(),
      sampleRate: driver.sampleRate(),
      ...(range === undefined ? {} : { range }),
      ...(driver.gain === undefined ? {} : { gain: driver.gain() }),
      ...(driver.battery === undefined ? {} : { battery: driver.battery() }),
      ...(driver.counters === undefined ? {} : { counters: driver.counters() }),
    };
    const text = JSON.stringify(state);
    if (text === this.sentState) return;
    this.sentState = text;
    this.event({ kind: 'state', state });
  }

  private event(event: LiveThreadEvent): void {
    this.io.post({ kind: 'live', event });
  }
}
