/**
 * The device across the thread boundary. The device layer lives on the main thread; an eeg-source
 * in a stream's worker subscribes through {@link DeviceProxy}, and {@link DeviceForwarder} on the
 * main thread subscribes to the real device and posts each frame to the worker. The device's frame
 * may be shared by other subscribers on the main thread, so its samples are copied once and the copy's
 * buffer is transferred (docs/architecture.md §Data plane: copies only at thread boundaries).
 * The channel names cross only when they change: the worker keeps each subscription's last list
 * (frozen, so the runtime seals its frames without copying it).
 */
import type { Frame } from '../../core/frame.js';
import { type FromHost, type NodeRef, type ToHost, samplesToWire } from './thread-messages.js';
import type { DeviceFrameSource } from '../../core/node.js';
import { type ErrorCode, ERROR_CATALOG, HeadsetdError } from '../../core/errors.js';
import type { RuntimeEvent } from './stream-runtime.js';

/** Worker side: a DeviceFrameSource whose subscriptions are served by the main thread. */
export class DeviceProxy implements DeviceFrameSource {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private readonly handlers = new Map<
    number,
    { onFrame: (frame: Frame) => void; channels: readonly string[] }
  >();

  constructor(private readonly post: (message: FromHost) => void) {}

  async subscribe(
    request: {
      channels: readonly string[];
      sampleRate?: number;
      gain?: number;
      frameMs?: number;
      owner?: NodeRef;
    },
    onFrame: (frame: Frame) => void,
  ): Promise<() => void> {
    const subscription = this.nextId++;
    this.handlers.set(subscription, { onFrame, channels: [] });
    const ready = new Promise<void>((resolve, reject) => {
      this.pending.set(subscription, { resolve, reject });
    });
    this.post({
      kind: 'device-subscribe',
      subscription,
      channels: [...request.channels],
      ...(request.sampleRate === undefined ? {} : { sampleRate: request.sampleRate }),
      ...(request.gain === undefined ? {} : { gain: request.gain }),
      ...(request.frameMs === undefined ? {} : { frameMs: request.frameMs }),
      ...(request.owner === undefined ? {} : { owner: { ...request.owner } }),
    });
    try {
      await ready;
    } catch (error) {
      this.handlers.delete(subscription);
      throw error;
    }
    return () => {
      if (this.handlers.delete(subscription)) this.post({ kind: 'device-unsubscribe', subscription });
    };
  }

  /** Handles the main thread's answers; returns false for messages that are not about the device. */
  handle(message: ToHost): boolean {
    if (message.kind === 'device-subscribed') {
      const waiter = this.pending.get(message.subscription);
      this.pending.delete(message.subscription);
      if (message.error === undefined) waiter?.resolve();
      else waiter?.reject(refusal(message.error, message.code, message.details));
      return true;
    }
    if (message.kind === 'device-frame') {
      const handler = this.handlers.get(message.subscription);
      if (handler === undefined) return true;
      const { frame } = message;
      if (frame.channels !== undefined) handler.channels = Object.freeze(frame.channels);
      // The deserialized object is this thread's own: it takes the subscription's channels.
      (frame as { channels: readonly string[] }).channels = handler.channels;
      handler.onFrame(frame as Frame);
      return true;
    }
    return false;
  }
}

/** Main side: serves one worker's device subscriptions. */
export class DeviceForwarder {
  private readonly subscriptions = new Map<number, Promise<(() => void) | undefined>>();
  private closed = false;

  constructor(
    private readonly device: DeviceFrameSource | undefined,
    private readonly post: (message: ToHost, transfer?: ArrayBuffer[]) => void,
    /** A subscription's condition (frames held back, or flowing again), as its node's event. */
    private readonly onEvent?: (event: RuntimeEvent) => void,
  ) {}

  /** Handles a worker's device request; returns false for messages that are not about the device. */
  handle(message: FromHost): boolean {
    if (message.kind === 'device-subscribe') {
      this.subscribe(message.subscription, message);
      return true;
    }
    if (message.kind === 'device-unsubscribe') {
      void this.unsubscribe(message.subscription);
      return true;
    }
    return false;
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
      frameMs,
      owner,
    }: Omit<Extract<FromHost, { kind: 'device-subscribe' }>, 'kind'>,
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
      ...(frameMs === undefined ? {} : { frameMs }),
    };
    const onCondition = (problem: string | undefined): void => {
      if (owner === undefined || this.closed) return;
      this.onEvent?.(
        problem === undefined
          ? { type: 'node_recovered', ...owner, message: 'it delivers every channel again' }
          : { type: 'node_degraded', ...owner, message: problem },
      );
    };
    /** The channels the worker holds for this subscription (the last ones sent). */
    let sent: readonly string[] | undefined;
    const unsubscribe = device
      .subscribe(
        request,
        (frame) => {
          const wire = samplesToWire(frame);
          const same = sent !== undefined && sameNames(sent, frame.channels);
          if (!same) sent = frame.channels;
          this.post(
            {
              kind: 'device-frame',
              subscription,
              frame: same ? wire : { ...wire, channels: [...frame.channels] },
            },
            [wire.data.buffer as ArrayBuffer],
          );
        },
        onCondition,
      )
      .then(
        (stop) => {
          if (this.closed) {
            // The worker ended while the device was still subscribing.
            stop();
            return undefined;
          }
          this.post({ kind: 'device-subscribed', subscription });
          return stop;
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
          this.subscriptions.delete(subscription);
          return undefined;
        },
      );
    this.subscriptions.set(subscription, unsubscribe);
  }

  private async unsubscribe(subscription: number): Promise<void> {
    const pending = this.subscriptions.get(subscription);
    this.subscriptions.delete(subscription);
    const stop = await pending;
    stop?.();
  }
}

/** True when two channel lists are the same names in the same order (most often the same array). */
function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
