/**
 * A thread that runs a host of streams beside its own work: the device's thread
 * (device/production/device-thread.ts), where a stream that reads the device takes each frame as it
 * is made, without a hand-off between threads. The runtime (streams/runtime/stream-worker.ts)
 * opens the host there and talks to it on a port of its own, as it talks to a worker it spawned.
 * Named here, below both, so that neither the device nor the runtime imports the other.
 */
import type { MessagePort, Worker } from 'node:worker_threads';
import type { Frame } from './frame.js';

/**
 * The heap limit of a thread that runs streams (a data-plane worker, the device's thread): a node
 * that floods memory ends its thread's streams, not the service. A limit, not a reservation.
 */
export const STREAM_THREAD_HEAP_LIMIT_MB = 512;

export interface StreamThread {
  /**
   * Runs a host of streams in the thread, listening on `port` (transferred there) and started
   * with `boot` (the runtime's, passed as it is); the handle on it.
   */
  openHost(port: MessagePort, boot: unknown): HostedThread;
}

/** A host of streams opened in a {@link StreamThread}. */
export interface HostedThread {
  /** The thread's, to read its event loop's utilization from outside. */
  readonly performance: Worker['performance'];
  /** Hears, once, that the thread ended under the host, and why. */
  onEnd(listener: (reason: string) => void): void;
  /**
   * The host is done (its port closed by the caller); with `kill`, the thread ends too (the host
   * hung it). Resolves when that is done.
   */
  end(kill: boolean): Promise<void>;
}

/**
 * The frames of the thread a host runs in, when that thread is the device's: `listener` is called
 * with each frame as it is made, until the returned function is called.
 */
export type LocalFrames = (listener: (frame: Frame) => void) => () => void;
