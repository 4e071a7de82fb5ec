/**
 * A device's thread, seen from the main thread: the thread that produces the device's frames
 * (thread-main.ts) while the acquisition's control stays here (owners, configuration, when a run
 * begins and ends: acquisition-core.ts). The thread starts with the first run (a live driver's:
 * with its opening) and lives as long as the device; it writes each frame to the ports the main thread opens for the stream workers, and
 * sends it here only while a listener here wants frames, so the main thread (the API's event loop)
 * is woken by no frame it does not use. The run's sample count and the next `seq` are two cells of
 * shared memory, read here without a message.
 *
 * The thread makes its frames of one of two kinds of source: the simulated or replayed EEG, pulled
 * by the thread's own pacing (producer.ts), or a live amplifier's driver, which the thread opens
 * and holds and whose blocks it frames as they come (thread-live.ts; the main side is
 * live-thread-driver.ts). The driver is asked to act by `request`, answered with its result or its
 * error; what it tells (link lost and back, rows lost, the rate guard's verdicts, its state) comes
 * back as `live` events.
 *
 * A run whose source throws (a file that can no longer be read) ends there: the acquisition hears
 * `failed`. A thread that dies (out of memory) ends its run the same way, and its ports close
 * under their readers; the next run of a pulled source starts a new thread.
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { ListenerSet } from '../../core/listener-set.js';
import {
  type HostedThread,
  STREAM_THREAD_HEAP_LIMIT_MB,
  type StreamThread,
} from '../../core/stream-thread.js';
import type { Frame } from '../../core/frame.js';
import { DeviceFrameReader, type DeviceFrameMessage, isDeviceFrameMessage } from '../../core/frame-wire.js';
import type { FramePort } from '../../core/node.js';
import { monotonicMs, wallClockOffsetMs } from '../../core/wall-clock.js';
import type { LiveRunPlan } from '../live/live-production.js';
import type { PlayedMarker, RunPlan } from './producer.js';
import { errorFromWire } from './thread-errors.js';
import type {
  FromDeviceThread,
  LiveRequest,
  LiveThreadEvent,
  ThreadSource,
  ToDeviceThread,
} from './thread-protocol.js';

export interface DeviceThreadOptions {
  /** The thread's entry module (service/device-thread-entry.ts: the built service/device-thread.ts, which runs thread-main). */
  readonly entry: URL;
  /** What the thread makes its samples of, as it is when the thread starts. */
  readonly source: () => ThreadSource;
}

export interface DeviceThreadHooks {
  /** A frame the main thread wanted (see {@link DeviceThread.wantFrames}). */
  frame(frame: Frame): void;
  markers(markers: readonly PlayedMarker[]): void;
  /** The run `run` failed (its source threw), or the thread died with the run going on. */
  failed(error: Error, run?: number): void;
  /** What a live driver in the thread tells. */
  live?: (event: LiveThreadEvent) => void;
}

/** How long a closing device waits for its thread to write a run's last frames. */
const CLOSE_GRACE_MS = 1_000;

export class DeviceThread implements StreamThread {
  private worker: Worker | undefined;
  private readonly counters = new SharedArrayBuffer(16);
  private readonly cells = new BigInt64Array(this.counters);
  private nextId = 1;
  private readonly ending = new Map<number, () => void>();
  /** The last run's end, which a close lets finish. */
  private lastEnd: Promise<void> = Promise.resolve();
  private readonly ports = new Map<number, MessagePort>();
  private wanted = false;
  /** Reads the frames the thread sends here (with the channel names it last sent). */
  private readonly frames = new DeviceFrameReader();
  private closed = false;
  /** The hosts of streams in the thread, each told (once) when the thread ends under it. */
  private readonly hosts = new ListenerSet<string>();
  /** Requests waiting for their answer, by id. */
  private readonly requests = new Map<
    number,
    { resolve(value: unknown): void; reject(error: Error): void }
  >();

  constructor(
    private readonly options: DeviceThreadOptions,
    private readonly hooks: DeviceThreadHooks,
  ) {}

  /** A run begins (`fresh`) or goes on in a new configuration. */
  begin(plan: RunPlan, fresh: boolean): void {
    this.send({ kind: 'begin', plan, fresh });
  }

  /** The run ends with the frames due by `at`; resolves once they are written. */
  end(at: number): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return Promise.resolve();
    const id = this.nextId++;
    this.lastEnd = new Promise((resolve) => {
      this.ending.set(id, resolve);
      worker.postMessage({ kind: 'end', at, id } satisfies ToDeviceThread);
    });
    return this.lastEnd;
  }

  /** A live run begins (`fresh`) or goes on in a new configuration. */
  beginLive(plan: LiveRunPlan, fresh: boolean): void {
    this.send({ kind: 'live-begin', plan, fresh });
  }

  /**
   * Asks the live driver in the thread (starting the thread); resolves with its answer, rejects
   * with its error as the same catalogue error, or when the thread ends before answering. An
   * aborted `signal` tells the thread the answer is no longer wanted.
   */
  request<T>(request: LiveRequest, signal?: AbortSignal): Promise<T> {
    const id = this.nextId++;
    const worker = this.started();
    return new Promise<T>((resolve, reject) => {
      this.requests.set(id, { resolve, reject });
      worker.postMessage({ kind: 'request', id, request } satisfies ToDeviceThread);
      signal?.addEventListener(
        'abort',
        () => {
          if (this.requests.has(id) && this.worker === worker)
            worker.postMessage({ kind: 'abort', id } satisfies ToDeviceThread);
        },
        { once: true },
      );
    });
  }

  /** Ends a run and goes on at once with another (a configuration change): no answer awaited. */
  change(plan: RunPlan): void {
    this.send({ kind: 'end', at: plan.startedAt });
    this.send({ kind: 'begin', plan, fresh: false });
  }

  /** Whether the main thread wants the frames (a listener here). */
  wantFrames(wanted: boolean): void {
    this.wanted = wanted;
    if (this.worker !== undefined) this.send({ kind: 'main', wanted });
  }

  /** The samples of the present (or last) run. */
  samples(): number {
    return Number(Atomics.load(this.cells, 0));
  }

  /** A port the thread writes every frame to, from now until it is closed. */
  openPort(): FramePort {
    const { port1, port2 } = new MessageChannel();
    const id = this.nextId++;
    this.ports.set(id, port1);
    if (this.worker !== undefined) this.worker.postMessage({ kind: 'port', id, port: port1 }, [port1]);
    return {
      port: port2,
      close: () => {
        if (!this.ports.delete(id)) return;
        if (this.worker !== undefined) this.send({ kind: 'unport', id });
        else port1.close();
      },
    };
  }

  /** Whether streams may still be opened in the thread (it is not closed). */
  get open(): boolean {
    return !this.closed;
  }

  /**
   * Opens a host of streams in the thread (starting it), on `port`: the streams that read the
   * device run there and take each frame as the thread makes it (thread-main.ts).
   */
  openHost(port: MessagePort, boot: unknown): HostedThread {
    const worker = this.started();
    worker.postMessage({ kind: 'host', port, boot } satisfies ToDeviceThread, [port]);
    const listeners = new ListenerSet<string>();
    const forget = this.hosts.add((reason) => {
      forget();
      listeners.emit(reason);
    });
    return {
      performance: worker.performance,
      onEnd: (listener) => {
        listeners.add(listener);
      },
      end: async (kill) => {
        forget();
        if (!kill || this.worker !== worker) return;
        // The host hung the thread: the device's run ends with it, and the next run starts a new one.
        this.died(
          worker,
          new Error("the device's thread was ended: a stream running in it stopped responding"),
        );
        await worker.terminate();
      },
    };
  }

  /** Tells the thread, if one runs, of a change of the model it copies (motors, wearer). */
  update(message: Extract<ToDeviceThread, { kind: 'motions' | 'wearer' }>): void {
    if (this.worker !== undefined) this.send(message);
  }

  /**
   * Ends the thread once the run it was told to end has written its last frames (at most
   * {@link CLOSE_GRACE_MS} later); nothing starts on it any more.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const worker = this.worker;
    if (worker === undefined) return;
    const grace = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
    void Promise.race([this.lastEnd, grace]).then(() => {
      this.worker = undefined;
      this.ports.clear();
      this.settle();
      this.hosts.emit('the device was closed');
      return worker.terminate();
    });
  }

  private send(message: ToDeviceThread): void {
    this.started().postMessage(message);
  }

  private started(): Worker {
    if (this.worker !== undefined) return this.worker;
    if (this.closed) throw new Error('the device thread is closed');
    const worker = new Worker(this.options.entry, {
      workerData: {
        source: this.options.source(),
        wallClockOffsetMs: wallClockOffsetMs(),
        performanceMinusMonotonicMs: performance.now() - monotonicMs(),
        counters: this.counters,
      },
      // A stream thread's heap limit, since the thread may host the streams that read the device
      // (their sockets' queues, their recorders' buffers); alone it holds one source and the frames in flight.
      resourceLimits: { maxOldGenerationSizeMb: STREAM_THREAD_HEAP_LIMIT_MB, maxYoungGenerationSizeMb: 2 },
    });
    // The device alone never keeps the process alive (as its timers do not).
    worker.unref();
    this.worker = worker;
    worker.on('message', (message: FromDeviceThread) => {
      this.receive(message);
    });
    worker.on('error', (error) => {
      this.died(worker, error);
    });
    worker.on('exit', (code) => {
      this.died(worker, new Error(`the device's thread exited (code ${code})`));
    });
    if (this.wanted) worker.postMessage({ kind: 'main', wanted: true } satisfies ToDeviceThread);
    // Ports opened before the thread: handed to it now.
    for (const [id, port] of this.ports) {
      worker.postMessage({ kind: 'port', id, port } satisfies ToDeviceThread, [port]);
    }
    return worker;
  }

  private receive(message: FromDeviceThread): void {
    if (isDeviceFrameMessage(message)) {
      this.frame(message);
      return;
    }
    switch (message.kind) {
      case 'ended':
        this.ending.get(message.id)?.();
        this.ending.delete(message.id);
        return;
      case 'markers':
        this.hooks.markers(message.markers);
        return;
      case 'failed':
        this.hooks.failed(new Error(message.message), message.run);
        return;
      case 'answer': {
        const waiting = this.requests.get(message.id);
        this.requests.delete(message.id);
        if (message.error === undefined) waiting?.resolve(message.value);
        else waiting?.reject(errorFromWire(message.error));
        return;
      }
      case 'live':
        this.hooks.live?.(message.event);
        return;
    }
  }

  private frame(message: DeviceFrameMessage): void {
    const frame = this.frames.read(message);
    if (this.wanted) this.hooks.frame(frame);
  }

  private died(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    // Its ports went with it: the readers see them close; its hosts of streams hear why.
    this.ports.clear();
    this.hosts.emit(error.message);
    this.settle();
    for (const waiting of this.requests.values()) waiting.reject(error);
    this.requests.clear();
    if (!this.closed) this.hooks.failed(error);
  }

  /** Every `end` waiting is answered: no thread will write its frames any more. */
  private settle(): void {
    for (const resolve of this.ending.values()) resolve();
    this.ending.clear();
  }
}
