/**
 * A device's thread: it produces the device's frames and writes each one straight to the ports of
 * the threads that read it (stream workers), hands it to the streams that run in this thread (the
 * streams that read the device, placed here by the runtime: a host of streams the thread's entry
 * module plugs in with {@link hostStreamsWith}, service/device-thread.ts), and sends it to the main
 * thread only while a listener there wants frames. The main thread keeps the acquisition's control
 * (device-thread.ts) and is woken by no frame it does not want. The frames are made of one of two
 * kinds of source:
 * - pulled (simulated, replay): producer.ts paces them over the thread's copy of the signal
 *   (thread-source.ts);
 * - live: the amplifier's driver, opened and held here, pushes its blocks and thread-live.ts frames
 *   them as they come.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { DeviceFrameWriter } from '../../core/frame-wire.js';
import { preciseTimeout, type PreciseTimer } from '../../core/precise-timer.js';
import { adoptWallClockOffset, monotonicMs, wallAtMs, wallNowMs } from '../../core/wall-clock.js';
import type { DeviceClock } from '../clock.js';
import { FrameProducer } from './producer.js';
import type { Frame } from '../../core/frame.js';
import type { FromDeviceThread, PulledThreadSource, ThreadBoot, ToDeviceThread } from './thread-protocol.js';
import { openThreadSignal } from './thread-source.js';
import { LiveThreadWork } from './thread-live.js';
import { ListenerSet } from '../../core/listener-set.js';
import type { LocalFrames } from '../../core/stream-thread.js';

if (parentPort === null)
  throw new Error('thread-main.ts runs only as a device thread (see device-thread.ts)');
const main = parentPort;
const boot = workerData as ThreadBoot;
adoptWallClockOffset(boot.wallClockOffsetMs);

/**
 * The main thread's time line: the run plans say when a run began in the main thread's
 * `performance.now()`, which counts from that thread's start; this thread's counts from its own.
 * Both are the one monotonic clock plus a constant.
 */
const shift = boot.performanceMinusMonotonicMs - (performance.now() - monotonicMs());
const clock: DeviceClock = {
  now: () => performance.now() + shift,
  wallNow: wallNowMs,
  wallAt: (now) => wallAtMs(now - shift),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  setDeadline: (callback, dueAt) => preciseTimeout(callback, dueAt - shift),
  clearTimeout: (handle) => {
    if (typeof handle === 'object' && 'cancel' in handle) (handle as PreciseTimer).cancel();
    else clearTimeout(handle as NodeJS.Timeout);
  },
};

const counters = new BigInt64Array(boot.counters);
const post = (message: FromDeviceThread, transfer?: ArrayBuffer[]): void => {
  main.postMessage(message, transfer);
};
const toMain = new DeviceFrameWriter(post);
let mainWants = false;
const ports = new Map<number, { port: MessagePort; writer: DeviceFrameWriter }>();
let samples = 0;
/**
 * The hosts of streams in this thread, each taking every frame as it is made. A stream's code that
 * throws here would end a worker thread; it ends this one the same way (its streams fail or start
 * again elsewhere), rather than pass for the device's run failing.
 */
const local = new ListenerSet<Frame>((error) => {
  setImmediate(() => {
    throw error;
  });
});

/**
 * A frame of the run, of `rows` samples per channel: counted, and written to every reader: the
 * other threads first (a post is quick, and they go on in parallel), then this thread's streams.
 */
function write(frame: Frame, rows: number): void {
  samples += rows;
  Atomics.store(counters, 0, BigInt(samples));
  for (const { writer } of ports.values()) writer.write(frame);
  if (mainWants) toMain.write(frame);
  local.emit(frame);
}

/** A new run: its sample count starts at 0. */
function fresh(): void {
  samples = 0;
  Atomics.store(counters, 0, 0n);
}

const nextSeq = (): number => Number(Atomics.add(counters, 1, 1n));

/** Runs a host of streams on a port, taking this thread's frames (plugged in by the thread's entry). */
type StreamHostStarter = (port: MessagePort, boot: unknown, frames: LocalFrames) => void;
let host: StreamHostStarter | undefined;

/**
 * Plugs in what runs the streams the main thread opens in this thread: the thread's entry module
 * (service/device-thread.ts) hands the runtime's host, which the device does not import.
 */
export function hostStreamsWith(starter: StreamHostStarter): void {
  host = starter;
}

/** What the thread does with the messages of its kind of source. */
interface Work {
  handle(message: ToDeviceThread): void;
}

function pulled(source: PulledThreadSource): Work {
  const signal = openThreadSignal(source, clock);
  const producer = new FrameProducer(
    clock,
    signal.source,
    (electrode) => signal.impedance(electrode),
    {
      frame: write,
      markers: (markers) => {
        post({ kind: 'markers', markers });
      },
      failed: (error, plan) => {
        post({
          kind: 'failed',
          run: plan.id,
          message: error instanceof Error ? error.message : String(error),
        });
      },
    },
    nextSeq,
  );
  return {
    handle: (message) => {
      switch (message.kind) {
        case 'begin':
          if (message.fresh) fresh();
          producer.begin(message.plan);
          return;
        case 'end':
          producer.end(message.at);
          if (message.id !== undefined) post({ kind: 'ended', id: message.id });
          return;
        case 'motions':
          signal.moved(message.motions);
          return;
        case 'wearer':
          signal.wearerChanged(message.wearer);
          return;
        default:
          return;
      }
    },
  };
}

const work: Work =
  boot.source.kind === 'live'
    ? new LiveThreadWork(boot.source, { write, fresh, nextSeq, post, wallNow: wallNowMs })
    : pulled(boot.source);

main.on('message', (message: ToDeviceThread) => {
  switch (message.kind) {
    case 'main':
      mainWants = message.wanted;
      return;
    case 'port': {
      const { port } = message;
      ports.set(message.id, {
        port,
        writer: new DeviceFrameWriter((frame, transfer) => {
          port.postMessage(frame, transfer);
        }),
      });
      return;
    }
    case 'unport':
      ports.get(message.id)?.port.close();
      ports.delete(message.id);
      return;
    case 'host':
      // Without a host plugged in, the port closes at once: its stream hears the thread cannot run it.
      if (host === undefined) message.port.close();
      else host(message.port, message.boot, (take) => local.add(take));
      return;
    default:
      work.handle(message);
  }
});
