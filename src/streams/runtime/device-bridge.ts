/**
 * The device across the thread boundary. The device's control lives on the main thread; an
 * eeg-source in a stream's worker subscribes through {@link DeviceProxy}, and {@link DeviceForwarder}
 * on the main thread opens the subscription on the device (its refusal, the acquisition hold, the
 * rate and gain: control). The frames do not pass through the main thread's hands: while the
 * worker has a subscription (from its request on, so that a run it starts arrives whole), the
 * forwarder asks the device for a frame port (`DeviceFeed.framePort`)
 * and hands its end to the worker, and whichever thread produces the device's frames (the device's
 * own thread for the simulated and replay devices, the main thread for a live amplifier) writes
 * each frame to it once, however many of the worker's nodes subscribe: one copy of the samples, the
 * buffer transferred, the channel names only when they change (core/frame-wire.ts).
 *
 * When the worker is the device's own thread (streams placed there: worker-pool.ts), no port is
 * opened: the thread hands each frame it makes to the proxy as a call ({@link LocalFrames}), and the
 * stream's nodes take it with no message at all.
 *
 * In the worker each subscription takes its part of the frame (core/frame-subscription.ts): its
 * channels, held back while the device lacks one of them, joined into frames of its `frameMs`.
 * When a subscription's frames are held back or flow again, the worker says so and the main thread
 * reports it as the node's event (`node_degraded`, `node_recovered`), as it reports a refusal.
 */
import type { Frame } from '../../core/frame.js';
import { FrameSubscription } from '../../core/frame-subscription.js';
import type { MessagePort } from 'node:worker_threads';
import { DeviceFrameReader, type DeviceFrameMessage, framePortOf } from '../../core/frame-wire.js';
import type { FromHost, NodeRef, ToHost } from './thread-messages.js';
import type {
  DeviceFeed,
  DeviceFrameSource,
  DeviceRequest,
  FramePort,
  OpenSubscription,
} from '../../core/node.js';
import { type ErrorCode, ERROR_CATALOG, HeadsetdError } from '../../core/errors.js';
import type { RuntimeEvent } from './stream-runtime.js';
import type { LocalFrames } from '../../core/stream-thread.js';

const PORT_GONE =
  "the device's frames stopped: the thread that produced them ended; stop and start the stream to read the device again";

/**
 * Frames a pending subscription keeps while the device opens it: the device answers within a few
 * frames; the bound only matters if its answer never comes (then the subscription never opens).
 */
const EARLY_FRAMES_MAX = 256;

/** Worker side: a DeviceFrameSource whose subscriptions are opened by the main thread. */
export class DeviceProxy implements DeviceFrameSource {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    {
      subscription: FrameSubscription;
      /** This thread's own frames made while the device was opening it (see {@link subscribe}). */
      early: Frame[];
      resolve: () => void;
      reject: (error: Error) => void;
    }
  >();
  /** The subscriptions the device accepted: each takes its part of every frame. */
  private readonly open = new Map<number, FrameSubscription>();
  /** Reads the device's frames: each with the channel names last sent, shared until they change. */
  private readonly frames = new DeviceFrameReader();

  /** Ends the taking of this thread's own frames, once begun (see {@link LocalFrames}). */
  private local: (() => void) | undefined;

  constructor(
    private readonly post: (message: FromHost) => void,
    /** This thread's own frames, when it is the device's thread. */
    private readonly localFrames?: LocalFrames,
  ) {}

  async subscribe(
    request: DeviceRequest,
    onFrame: (frame: Frame) => void,
    onCondition?: (problem: string | undefined) => void,
  ): Promise<() => void> {
    const id = this.nextId++;
    const subscription = new FrameSubscription(request.frameMs, onFrame, (problem) => {
      onCondition?.(problem);
      this.post({
        kind: 'device-condition',
        subscription: id,
        ...(problem === undefined ? {} : { problem }),
      });
    });
    const ready = new Promise<void>((resolve, reject) => {
      this.pending.set(id, { subscription, early: [], resolve, reject });
    });
    // In the device's own thread, its frames are taken from before the device is asked: the run this
    // subscription starts begins in this thread, and its first frames may come before the device's
    // answer does (the answer crosses from the main thread on another port, and a timer due runs
    // before a message waiting). They wait in the pending subscription until the answer.
    this.local ??= this.localFrames?.((frame) => {
      this.deliver(frame);
    });
    this.post({
      kind: 'device-subscribe',
      subscription: id,
      channels: [...request.channels],
      ...(request.sampleRate === undefined ? {} : { sampleRate: request.sampleRate }),
      ...(request.gain === undefined ? {} : { gain: request.gain }),
      ...(request.owner === undefined ? {} : { owner: { ...request.owner } }),
    });
    await ready;
    return () => {
      if (!this.open.delete(id) && !this.pending.delete(id)) return;
      subscription.end();
      this.post({ kind: 'device-unsubscribe', subscription: id });
    };
  }

  /** Handles the main thread's answers; returns false for messages that are not about the device. */
  handle(message: ToHost): boolean {
    switch (message.kind) {
      case 'device-subscribed': {
        const waiter = this.pending.get(message.subscription);
        this.pending.delete(message.subscription);
        if (waiter === undefined) return true;
        if (message.error !== undefined) {
          waiter.reject(refusal(message.error, message.code, message.details));
          return true;
        }
        const id = message.subscription;
        waiter.subscription.accept(
          message.channels === undefined ? undefined : Object.freeze(message.channels),
        );
        waiter.resolve();
        if (waiter.early.length === 0) {
          this.open.set(id, waiter.subscription);
          return true;
        }
        // The frames made while the device opened it go to the node once its start is done (a node
        // starting takes no frame), ahead of any newer one: it stays pending, taking them, until then.
        this.pending.set(id, waiter);
        setImmediate(() => {
          if (this.pending.get(id) !== waiter) return; // unsubscribed meanwhile
          this.pending.delete(id);
          this.open.set(id, waiter.subscription);
          for (const frame of waiter.early) waiter.subscription.push(frame);
        });
        return true;
      }
      case 'device-port':
        this.listen(message.port);
        return true;
      case 'device-hold':
        (this.open.get(message.subscription) ?? this.pending.get(message.subscription)?.subscription)?.hold(
          message.reason,
        );
        return true;
      default:
        return false;
    }
  }
  /** The device's frames from now on come on `port`, until its writer closes it. */
  private listen(port: MessagePort): void {
    port.on('message', (message: DeviceFrameMessage) => {
      this.frame(message);
    });
    port.on('close', () => {
      port.removeAllListeners();
      // Closed under open subscriptions: the thread that wrote it ended (it ran out of memory);
      // none of them gets a frame again, and each says so rather than wait in silence.
      for (const subscription of this.open.values()) subscription.hold(PORT_GONE);
    });
  }

  private frame(message: DeviceFrameMessage): void {
    this.deliver(this.frames.read(message));
  }

  private deliver(frame: Frame): void {
    // Every subscription reads the same frame (none alters it: a selection or a join is a frame of its own).
    for (const subscription of this.open.values()) subscription.push(frame);
    for (const waiter of this.pending.values()) {
      if (waiter.early.length < EARLY_FRAMES_MAX) waiter.early.push(frame);
    }
  }

  /** Stops taking this thread's own frames (its host ends). */
  close(): void {
    this.local?.();
    this.local = undefined;
  }
}

/** Main side: serves one worker's device subscriptions, and a port of the device's frames to it. */
export class DeviceForwarder {
  private readonly subscriptions = new Map<
    number,
    { opening: Promise<OpenSubscription | undefined>; owner: NodeRef | undefined }
  >();
  /** Subscriptions open or opening on the device: the worker gets the device's frames while there is one. */
  private opened = 0;
  /** The port the device writes its frames to for this worker, while a subscription is open. */
  private port: FramePort | undefined;
  private closed = false;

  constructor(
    private readonly device: DeviceFeed | undefined,
    private readonly post: (message: ToHost, transfer?: MessagePort[]) => void,
    /** A subscription's condition (frames held back, or flowing again), as its node's event. */
    private readonly onEvent?: (event: RuntimeEvent) => void,
    /** The worker is the device's own thread: its frames need no port (see {@link LocalFrames}). */
    private readonly local = false,
  ) {}

  /** Handles a worker's device request; returns false for messages that are not about the device. */
  handle(message: FromHost): boolean {
    switch (message.kind) {
      case 'device-subscribe':
        this.subscribe(message.subscription, message);
        return true;
      case 'device-unsubscribe':
        void this.unsubscribe(message.subscription);
        return true;
      case 'device-condition':
        this.condition(message.subscription, message.problem);
        return true;
      default:
        return false;
    }
  }

  /** Ends every subscription (the stream stopped or its worker died). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.subscriptions.keys()].map((id) => this.unsubscribe(id)));
  }

  private subscribe(
    subscription: number,
    {
      channels,
      sampleRate,
      gain,
      owner,
    }: Omit<Extract<FromHost, { kind: 'device-subscribe' }>, 'kind' | 'subscription'>,
  ): void {
    const device = this.device;
    if (device === undefined || this.closed) {
      this.post({
        kind: 'device-subscribed',
        subscription,
        error: 'no EEG device is attached to this service',
      });
      return;
    }
    const request = {
      channels,
      ...(sampleRate === undefined ? {} : { sampleRate }),
      ...(gain === undefined ? {} : { gain }),
    };
    const onHold = (reason: string): void => {
      if (!this.closed) this.post({ kind: 'device-hold', subscription, reason });
    };
    // The port before the device is asked: the run this subscription may start then reaches the
    // worker from its first frame (DeviceProxy keeps what comes before the answer). The device's
    // own thread takes its frames itself.
    this.opened++;
    if (!this.local && this.port === undefined) {
      this.port = device.framePort?.() ?? framePortOf((listener) => device.onFrame(listener));
      this.post({ kind: 'device-port', port: this.port.port }, [this.port.port]);
    }
    const opening = device.open(request, onHold).then(
      (opened) => {
        if (this.closed) {
          // The worker ended while the device was still subscribing (close() unsubscribes it).
          opened.close();
          return undefined;
        }
        this.post({
          kind: 'device-subscribed',
          subscription,
          ...(opened.channels === undefined ? {} : { channels: [...opened.channels] }),
        });
        return opened;
      },
      (error: unknown) => {
        this.post({
          kind: 'device-subscribed',
          subscription,
          error: error instanceof Error ? error.message : 'the device refused the subscription',
          ...(error instanceof HeadsetdError
            ? { code: error.code, ...(error.details === undefined ? {} : { details: error.details }) }
            : {}),
        });
        // (Unless the worker let it go meanwhile: then its unsubscribe releases it.)
        if (this.subscriptions.delete(subscription)) this.release();
        return undefined;
      },
    );
    this.subscriptions.set(subscription, { opening, owner });
  }

  private condition(subscription: number, problem: string | undefined): void {
    const owner = this.subscriptions.get(subscription)?.owner;
    if (owner === undefined || this.closed) return;
    this.onEvent?.(
      problem === undefined
        ? { type: 'node_recovered', ...owner, message: 'it delivers every channel again' }
        : { type: 'node_degraded', ...owner, message: problem },
    );
  }

  private async unsubscribe(subscription: number): Promise<void> {
    const entry = this.subscriptions.get(subscription);
    this.subscriptions.delete(subscription);
    if (entry === undefined) return;
    (await entry.opening)?.close();
    this.release();
  }

  /** A subscription ends: the port closes with the last one. */
  private release(): void {
    this.opened--;
    if (this.opened > 0) return;
    this.port?.close();
    this.port = undefined;
  }
}

/** The device's refusal as the worker rethrows it: with its catalog code when it had one. */
function refusal(
  message: string,
  code: string | undefined,
  details: Record<string, unknown> | undefined,
): Error {
  if (code === undefined || !(code in ERROR_CATALOG)) return new Error(message);
  return new HeadsetdError(code as ErrorCode, message, details);
}
