/**
 * Which data-plane worker a starting stream runs on, and when a worker is spawned or retired: the
 * pool's placement policy, apart from the streams' lifecycle (worker-runtime.ts). A stream joins
 * a live worker with room (busy less than `spreadAt` of the last 2 s), the one with the fewest
 * streams; only when every worker is busier is another spawned, up to `maxWorkers`; with the pool
 * full, the worker with the fewest streams. Memory is what a headset lacks: a second isolate is
 * paid for only when the first is busy (docs/architecture.md §Data plane). A worker left without
 * streams ends after `idleMs`.
 *
 * A stream that reads the device goes first to the device's own thread, when the device has one
 * that hosts streams (`deviceThread`) and it has room: there each frame reaches the stream as it is
 * made, with no thread to wake and nothing to hand over (docs/architecture.md §Data plane). That
 * host is not the pool's to end: it lives with the device's thread.
 */
import { StreamWorker, type WorkerSpawnOptions } from './stream-worker.js';
import type { StreamThread } from '../../core/stream-thread.js';

export interface WorkerPoolOptions {
  spawn: WorkerSpawnOptions;
  maxWorkers: number;
  /** Busy share (0–1) from which a worker takes no more streams while the pool may grow. */
  spreadAt: number;
  idleMs: number;
  /** The device's thread, when it can host streams (now: it may start or end with the device's runs). */
  deviceThread?: () => StreamThread | undefined;
}

export class WorkerPool {
  private workers: StreamWorker[] = [];
  /** Workers without streams, and the timer that ends each unless a stream comes first. */
  private readonly retiring = new Map<StreamWorker, NodeJS.Timeout>();
  /** The host of streams in the device's thread, and that thread, while both live. */
  private beside: { worker: StreamWorker; thread: StreamThread } | undefined;

  constructor(private readonly options: WorkerPoolOptions) {}

  /** How many streams each live worker runs. */
  loads(): number[] {
    return this.live().map((w) => w.load);
  }

  /** Each live worker's recent busy share, 0–1. */
  utilizations(): number[] {
    return this.live().map((w) => w.utilization);
  }

  /** How many streams the device's thread runs (0 when it runs none or has no host). */
  besideDeviceLoad(): number {
    return this.beside?.worker.alive === true ? this.beside.worker.load : 0;
  }

  /**
   * The worker a starting stream goes to (see the policy above); `readsDevice`: the stream reads
   * the device, and may run in the device's thread.
   */
  pick(readsDevice = false): StreamWorker {
    if (readsDevice) {
      const worker = this.besideDevice();
      if (worker !== undefined && worker.utilization < this.options.spreadAt) return worker;
    }
    this.workers = this.live();
    const roomy = this.workers.filter((w) => w.utilization < this.options.spreadAt);
    if (roomy.length > 0) return this.keep(fewestStreams(roomy));
    if (this.workers.length < this.options.maxWorkers) {
      const worker = new StreamWorker(this.options.spawn);
      this.workers.push(worker);
      return worker;
    }
    return this.keep(fewestStreams(this.workers));
  }

  /** Takes a stream off its worker; a worker left without streams ends after `idleMs`. */
  release(worker: StreamWorker, streamId: string): void {
    worker.release(streamId);
    if (worker === this.beside?.worker) return;
    if (worker.load > 0 || !worker.alive || this.retiring.has(worker)) return;
    const timer = setTimeout(() => {
      this.retiring.delete(worker);
      if (worker.load > 0) return;
      this.workers = this.workers.filter((w) => w !== worker);
      void worker.terminate();
    }, this.options.idleMs);
    timer.unref();
    this.retiring.set(worker, timer);
  }

  /** Ends every worker, waiting for each. */
  async close(): Promise<void> {
    for (const timer of this.retiring.values()) clearTimeout(timer);
    this.retiring.clear();
    const beside = this.beside?.worker;
    this.beside = undefined;
    await Promise.all(
      [...this.workers.splice(0), ...(beside === undefined ? [] : [beside])].map((w) => w.terminate()),
    );
  }

  /** Ends every worker now: terminate() kills the worker's process groups before its first await. */
  abort(): void {
    for (const worker of this.workers.splice(0)) void worker.terminate();
    void this.beside?.worker.terminate();
    this.beside = undefined;
  }

  /**
   * The host of streams in the device's thread: the one opened there, or a new one when the thread
   * is new (the last ended with a run, or the host died with its thread); undefined without one.
   */
  private besideDevice(): StreamWorker | undefined {
    const thread = this.options.deviceThread?.();
    if (thread === undefined) return undefined;
    if (this.beside?.thread !== thread || !this.beside.worker.alive)
      this.beside = { worker: new StreamWorker(this.options.spawn, thread), thread };
    return this.beside.worker;
  }

  private live(): StreamWorker[] {
    return this.workers.filter((w) => w.alive);
  }

  /** A worker chosen for a stream is no longer retiring. */
  private keep(worker: StreamWorker): StreamWorker {
    clearTimeout(this.retiring.get(worker));
    this.retiring.delete(worker);
    return worker;
  }
}

function fewestStreams(workers: readonly StreamWorker[]): StreamWorker {
  return workers.reduce((least, w) => (w.load < least.load ? w : least));
}
