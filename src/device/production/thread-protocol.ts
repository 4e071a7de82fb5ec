/**
 * Messages between a device's acquisition on the main thread (device-thread.ts) and the device's
 * thread that produces its frames (thread-main.ts). Control goes to the thread (a run begins or
 * ends, a port opens, the model's state changes); frames go from it straight to the ports of the
 * threads that read them, and to the main thread only while a listener there wants them.
 */
import type { MessagePort } from 'node:worker_threads';
import type { DeviceFrameMessage } from '../../core/frame-wire.js';
import type { ContactSnapshot } from '../simulated/contact.js';
import type { MotorMotions } from '../simulated/motors.js';
import type { WearerSnapshot } from '../simulated/wearer.js';
import type { PlayedMarker, RunPlan } from './producer.js';

/** What the thread makes its samples of: a copy of the simulated wearer and contact, or a file. */
export type ThreadSource =
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
  /** The motors moved (simulated): the contact's impedance follows them. */
  | { readonly kind: 'motions'; readonly motions: MotorMotions }
  /** The wearer looked at something else or closed their eyes (simulated). */
  | { readonly kind: 'wearer'; readonly wearer: WearerSnapshot };

export type FromDeviceThread =
  | DeviceFrameMessage
  /** The run of an `end` with an `id` ended, with its last frames written. */
  | { readonly kind: 'ended'; readonly id: number }
  | { readonly kind: 'markers'; readonly markers: readonly PlayedMarker[] }
  /** The run `run` ended because its source threw; the thread waits for the next run. */
  | { readonly kind: 'failed'; readonly run: number; readonly message: string };
