/**
 * Messages between a device's acquisition on the main thread (device-thread.ts) and the device's
 * thread that produces its frames (thread-main.ts). Control goes to the thread (a run begins or
 * ends, a port opens, a host of streams opens, the model's state changes; a live amplifier's driver is asked to open,
 * start, stop, set its gain, measure or close, each answered); frames go from it straight to the
 * ports of the threads that read them, and to the main thread only while a listener there wants
 * them. A live driver's events and state come back as they change.
 */
import type { MessagePort } from 'node:worker_threads';
import type { ErrorCode, ErrorDetails } from '../../core/errors.js';
import type { DeviceFrameMessage } from '../../core/frame-wire.js';
import type { LslNetwork } from '../../lsl/network.js';
import type { BatteryStatus } from '../headset.js';
import type { LiveChannel, LiveDriverInfo, LiveLinkEvent } from '../live/driver.js';
import type { LiveRunPlan } from '../live/live-production.js';
import type { RateVerdict } from '../live/rate-guard.js';
import type { ContactSnapshot } from '../simulated/contact.js';
import type { MotorMotions } from '../simulated/motors.js';
import type { WearerSnapshot } from '../simulated/wearer.js';
import type { PlayedMarker, RunPlan } from './producer.js';

/** What the thread makes its samples of: a pulled source, or a live amplifier's driver. */
export type ThreadSource = PulledThreadSource | LiveThreadSource;

/** A pulled source: a copy of the simulated wearer and contact, or a file. */
export type PulledThreadSource =
  | {
      readonly kind: 'simulated';
      readonly seed: number;
      readonly mainsFrequency?: number;
      readonly contact: ContactSnapshot;
      readonly motions: MotorMotions;
      /** Absent when the simulated EEG has no wearer. */
      readonly wearer?: WearerSnapshot;
    }
  | { readonly kind: 'replay'; readonly file: string };

/**
 * A live amplifier whose driver the thread holds: the kind of device (device/kinds.ts, a kind with
 * a `driver`) and the text after `<kind>:`, opened in the thread.
 */
export interface LiveThreadSource {
  readonly kind: 'live';
  readonly device: string;
  readonly argument: string;
  /** Where LSL looks for streams (the service's `lsl` settings). */
  readonly lsl?: LslNetwork;
}

/** What the main thread reads of a live driver synchronously, as the thread last sent it. */
export interface LiveDriverState {
  readonly info: LiveDriverInfo;
  readonly channels: readonly LiveChannel[];
  readonly sampleRate: number;
  readonly range?: number;
  readonly gain?: number;
  readonly battery?: BatteryStatus;
  readonly counters?: Readonly<Record<string, number>>;
}

/** What a live driver has of the optional members of `LiveEegDriver`, known once it is open. */
export interface LiveDriverParts {
  readonly setGain: boolean;
  readonly gain: boolean;
  readonly measureImpedance: boolean;
  readonly impedanceMeasurementMs?: number;
  readonly battery: boolean;
  readonly counters: boolean;
}

/** A request to a live driver in the thread; each is answered (`answer`). */
export type LiveRequest =
  /** Opens the driver; answered with its `LiveDriverParts` and, first, its state. */
  | { readonly kind: 'open' }
  | { readonly kind: 'start' }
  | { readonly kind: 'stop' }
  | { readonly kind: 'setGain'; readonly gain: number }
  /** Answered with Ω by electrode; `abort` with the same id ends it. */
  | { readonly kind: 'measureImpedance'; readonly electrodes: readonly string[] }
  | { readonly kind: 'close' };

/** An error carried across: a catalogue error keeps its code, details and class's fields. */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly code?: ErrorCode;
  readonly details?: ErrorDetails;
  /** DeviceUnavailableError's `reason`. */
  readonly reason?: string;
}

/** What a live driver in the thread tells the main thread as it happens. */
export type LiveThreadEvent =
  | { readonly kind: 'link'; readonly event: LiveLinkEvent }
  | { readonly kind: 'rows-lost'; readonly rows: number }
  | { readonly kind: 'rate'; readonly verdict: RateVerdict }
  | { readonly kind: 'state'; readonly state: LiveDriverState }
  /** What the driver says a person should see (the service's log). */
  | { readonly kind: 'log'; readonly message: string };

/** What the thread is started with (`workerData`). */
export interface ThreadBoot {
  readonly source: ThreadSource;
  /** The main thread's wall-clock offset (core/wall-clock.ts): every thread stamps on one clock. */
  readonly wallClockOffsetMs: number;
  /** The main thread's `performance.now()` minus the monotonic clock: the run plans' time line. */
  readonly performanceMinusMonotonicMs: number;
  /**
   * Two BigInt64 cells shared with the main thread: [0] the samples of the present run (what the
   * acquisition's `state()` reports), [1] the `seq` of the next frame (increasing over the device's
   * life, also across a thread that ended and another that took over).
   */
  readonly counters: SharedArrayBuffer;
}

export type ToDeviceThread =
  /** A run begins; `fresh`: a new run (its sample count starts at 0), else a configuration change. */
  | { readonly kind: 'begin'; readonly plan: RunPlan; readonly fresh: boolean }
  /** The run ends with the frames due by `at`; `id` asks for an `ended` answer. */
  | { readonly kind: 'end'; readonly at: number; readonly id?: number }
  /** Whether the main thread wants the frames too (a listener there). */
  | { readonly kind: 'main'; readonly wanted: boolean }
  /** Write every frame to `port` too, until `unport`. */
  | { readonly kind: 'port'; readonly id: number; readonly port: MessagePort }
  | { readonly kind: 'unport'; readonly id: number }
  /**
   * Run a host of streams on `port` (streams/runtime/host.ts), whose eeg-source nodes take every
   * frame as the thread makes it; it ends when the port closes.
   */
  | { readonly kind: 'host'; readonly port: MessagePort; readonly boot: unknown }
  /** The motors moved (simulated): the contact's impedance follows them. */
  | { readonly kind: 'motions'; readonly motions: MotorMotions }
  /** The wearer looked at something else or closed their eyes (simulated). */
  | { readonly kind: 'wearer'; readonly wearer: WearerSnapshot }
  /** A live run begins (`fresh`) or goes on in a new configuration (the frames' maker flushes first). */
  | { readonly kind: 'live-begin'; readonly plan: LiveRunPlan; readonly fresh: boolean }
  /** A request to the live driver, answered with the same `id`. */
  | { readonly kind: 'request'; readonly id: number; readonly request: LiveRequest }
  /** The request `id` (a measurement) is no longer wanted. */
  | { readonly kind: 'abort'; readonly id: number };

export type FromDeviceThread =
  | DeviceFrameMessage
  /** The run of an `end` with an `id` ended, with its last frames written. */
  | { readonly kind: 'ended'; readonly id: number }
  | { readonly kind: 'markers'; readonly markers: readonly PlayedMarker[] }
  /** The run `run` ended because its source threw; the thread waits for the next run. */
  | { readonly kind: 'failed'; readonly run: number; readonly message: string }
  /** The answer to the request `id`: its value, or the error it threw. */
  | { readonly kind: 'answer'; readonly id: number; readonly value?: unknown; readonly error?: WireError }
  | { readonly kind: 'live'; readonly event: LiveThreadEvent };
