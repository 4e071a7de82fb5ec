/**
 * Impedance sessions of the guide paths (docs/systems.md §Impedance
 * sessions): one measurement (`single`) or measurements every `updateInterval` ms (`continuous`)
 * until stopped. One session runs at a time: starting one stops the one running. Readings (kΩ)
 * go to the history store and, for continuous sessions, to the live WebSocket clients. A session
 * that meets EEG acquisition ends `failed` (the two are exclusive on this hardware).
 *
 * Measurements start on a grid of the device's clock (start, start + interval, ...), so readings
 * keep the asked interval however long each measurement takes, as long as it takes less than the
 * interval. Stopping a session aborts its measurement in flight and returns once the meter is free,
 * so an acquisition asked for right after the stop is not refused.
 */
import { acquisitionBusy } from '../device/busy.js';
import { requirePart, requireParts } from '../device/capabilities.js';
import { randomUUID } from 'node:crypto';
import type { Electrode } from '../core/electrodes.js';
import type { ElectrodeMap, Headset } from '../device/headset.js';
import { toKiloohms } from './headmap/impedance-levels.js';
import type { ImpedanceReading, ImpedanceStore } from '../platform/store/impedance-store.js';
import type { DeviceClock } from '../device/clock.js';
import { HeadsetdError } from '../core/errors.js';

export type SessionStatus = 'running' | 'completed' | 'stopped' | 'failed';
export type SessionMode = 'continuous' | 'single';

/** Sessions kept in memory for GET after they end. */
const KEPT_SESSIONS = 50;

export interface SessionRequest {
  readonly continuous: boolean;
  readonly channels: readonly Electrode[];
  /** ms, ≥ 100. */
  readonly updateInterval: number;
  readonly testSignal?: { readonly frequency: number; readonly amplitude: number };
}

export interface Session {
  readonly id: string;
  readonly mode: SessionMode;
  readonly channels: readonly Electrode[];
  readonly updateInterval: number;
  readonly testSignal: { readonly frequency: number; readonly amplitude: number } | undefined;
  readonly startedAt: number;
  status: SessionStatus;
  error: string | undefined;
  latest: ImpedanceReading | undefined;
  readings: number;
}

export function ohmsToKiloohms(values: ElectrodeMap<number>): ElectrodeMap<number> {
  const out: ElectrodeMap<number> = {};
  for (const [electrode, ohms] of Object.entries(values) as [Electrode, number][])
    out[electrode] = toKiloohms(ohms);
  return out;
}

/** Read through a call: the status changes while a measurement is awaited (stop). */
function isRunning(session: Session): boolean {
  return session.status === 'running';
}

/** Resolves after `ms` on `clock`, or at once when `signal` aborts. */
function pause(clock: DeviceClock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      clock.clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = clock.setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The running session's loop: aborting it stops the measurement in flight. */
interface Runner {
  readonly session: Session;
  readonly abort: AbortController;
  /** Settles when the loop has ended and its measurement no longer holds the meter. */
  readonly done: Promise<void>;
}

export class ImpedanceSessions {
  private readonly sessions = new Map<string, Session>();
  private current: Session | undefined;
  private runner: Runner | undefined;
  private readonly firstReading = new Map<string, (() => void)[]>();
  private readonly clock: DeviceClock;

  constructor(
    private readonly device: Headset,
    private readonly store: ImpedanceStore,
    private readonly onReading: (session: Session, reading: ImpedanceReading) => void,
  ) {
    this.clock = device.clock;
  }

  /**
   * Starts a session (stopping the running one); 409 device_busy while EEG is acquired. The
   * session's `updateInterval` is the asked one, or the meter's measurement time if that is longer.
   */
  start(request: SessionRequest): Session {
    // A device without an impedance meter is told so before being told to stop acquisition.
    requireParts(this.device, 'impedance');
    const acquisition = this.device.eeg.state();
    if (acquisition.streaming) throw acquisitionBusy(acquisition.owners, 'checking impedance');
    if (this.current?.status === 'running') this.finish(this.current, 'stopped');
    const session: Session = {
      id: randomUUID(),
      mode: request.continuous ? 'continuous' : 'single',
      channels: request.channels,
      updateInterval: Math.max(
        request.updateInterval,
        Math.ceil(requirePart(this.device, 'impedance').measurementMs()),
      ),
      testSignal: request.testSignal,
      startedAt: this.clock.wallNow(),
      status: 'running',
      error: undefined,
      latest: undefined,
      readings: 0,
    };
    this.sessions.set(session.id, session);
    this.current = session;
    this.forgetOld();
    const abort = new AbortController();
    this.runner = { session, abort, done: this.run(session, abort.signal) };
    return session;
  }

  /** A session by id, else the latest one; session_not_found when there is none. */
  get(id?: string, pointer = '/querystring/sessionId'): Session {
    const session = id === undefined ? this.current : this.sessions.get(id);
    if (session === undefined) {
      throw new HeadsetdError(
        'session_not_found',
        id === undefined
          ? 'No impedance session has been started; POST /electrodes/impedance/start first.'
          : `No impedance session has the id ${JSON.stringify(id)}.`,
        id === undefined ? {} : { path: pointer },
      );
    }
    return session;
  }

  /** Resolves when the session has its first reading or has ended (at most `timeoutMs`). */
  async firstReadingOf(session: Session, timeoutMs = 2000): Promise<void> {
    if (session.latest !== undefined || session.status !== 'running') return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      const waiting = this.firstReading.get(session.id) ?? [];
      waiting.push(() => {
        clearTimeout(timer);
        resolve();
      });
      this.firstReading.set(session.id, waiting);
    });
  }

  /**
   * Stops a session: its measurement in flight is aborted, and the promise settles once the loop
   * has ended, so the device is free for EEG acquisition when it does.
   */
  async stop(id?: string, pointer = '/sessionId'): Promise<Session> {
    const session = this.get(id, pointer);
    if (session.status === 'running') this.finish(session, 'stopped');
    if (this.runner?.session === session) await this.runner.done;
    return session;
  }

  /** The running continuous session, if any. */
  running(): Session | undefined {
    return this.current?.status === 'running' ? this.current : undefined;
  }

  close(): void {
    if (this.current?.status === 'running') this.finish(this.current, 'stopped');
  }

  private finish(session: Session, status: SessionStatus, error?: string): void {
    session.status = status;
    session.error = error;
    if (this.runner?.session === session) this.runner.abort.abort();
    this.notifyFirst(session);
  }

  private notifyFirst(session: Session): void {
    const waiting = this.firstReading.get(session.id);
    this.firstReading.delete(session.id);
    for (const resolve of waiting ?? []) resolve();
  }

  private async run(session: Session, signal: AbortSignal): Promise<void> {
    // When the next measurement is due, on the device's monotonic clock.
    let due = this.clock.now();
    while (isRunning(session)) {
      try {
        const ohms = await requirePart(this.device, 'impedance').measure(session.channels, {
          signal,
          holder: `impedance session ${session.id}; POST /electrodes/impedance/stop ends it`,
        });
        // Stopped while measuring: the reading belongs to no one.
        if (!isRunning(session)) return;
        const reading = { timestamp: this.clock.wallNow(), values: ohmsToKiloohms(ohms) };
        session.latest = reading;
        session.readings++;
        this.store.record(session.id, reading);
        this.onReading(session, reading);
        this.notifyFirst(session);
      } catch (error) {
        if (isRunning(session)) this.finish(session, 'failed', (error as Error).message);
        return;
      }
      if (session.mode === 'single') {
        this.finish(session, 'completed');
        return;
      }
      // A measurement that overran its slot starts the next one at once, on a new grid.
      due = Math.max(due + session.updateInterval, this.clock.now());
      await pause(this.clock, due - this.clock.now(), signal);
    }
  }

  private forgetOld(): void {
    for (const id of this.sessions.keys()) {
      if (this.sessions.size <= KEPT_SESSIONS) break;
      if (this.sessions.get(id) !== this.current) this.sessions.delete(id);
    }
  }
}
