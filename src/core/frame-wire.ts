/**
 * Frames across a thread boundary: the structured-clone form of a frame (its samples in a buffer
 * the sender transfers), and the device's frames on their way to a stream's worker. The device's
 * frames reach a worker from whichever thread produces them (the device's thread, or the main
 * thread for a device that produces there) as `device-frame` messages, written by one
 * {@link DeviceFrameWriter} per receiving worker.
 */
import { MessageChannel } from 'node:worker_threads';
import type { Frame, FrameMarker } from './frame.js';
import type { FramePort } from './node.js';

/** A frame as it crosses the thread boundary (samples in a transferred buffer). */
export interface WireFrame {
  seq: number;
  timestamp: number;
  sampleRate: number;
  channels: string[];
  data: Float32Array;
  units?: string[];
  discontinuity?: boolean;
  range?: number;
  highpass?: number;
  lostSamples?: number;
  annotation?: string;
  marker?: FrameMarker;
  createdAt?: number;
}

/**
 * A device frame on the wire, once per worker: `channels` only when they differ
 * from the previous frame sent to that worker, which they almost never do, so that 21 names are
 * not cloned with every frame.
 */
export type DeviceWireFrame = Omit<WireFrame, 'channels'> & { channels?: string[] };

/**
 * A frame's copy for the thread boundary: the samples are copied once (the frame may be shared
 * with other consumers on this side) and the copy's buffer is what the caller transfers.
 */
export function toWire(frame: Frame): WireFrame {
  return { ...samplesToWire(frame), channels: [...frame.channels] };
}

/** {@link toWire} without the channel names (a device frame whose channels did not change). */
export function samplesToWire(frame: Frame): Omit<WireFrame, 'channels'> {
  return {
    seq: frame.seq,
    timestamp: frame.timestamp,
    sampleRate: frame.sampleRate,
    data: frame.data.slice(),
    ...(frame.units === undefined ? {} : { units: [...frame.units] }),
    ...(frame.discontinuity === true ? { discontinuity: true } : {}),
    ...(frame.range === undefined ? {} : { range: frame.range }),
    ...(frame.highpass === undefined ? {} : { highpass: frame.highpass }),
    ...(frame.lostSamples === undefined ? {} : { lostSamples: frame.lostSamples }),
    ...(frame.annotation === undefined ? {} : { annotation: frame.annotation }),
    ...(frame.marker === undefined ? {} : { marker: { ...frame.marker } }),
    ...(frame.createdAt === undefined ? {} : { createdAt: frame.createdAt }),
  };
}

/** A device frame as a stream's worker receives it (streams/runtime/device-bridge.ts `DeviceProxy`). */
export interface DeviceFrameMessage {
  kind: 'device-frame';
  frame: DeviceWireFrame;
}

/**
 * Writes the device's frames to one receiver (a stream's worker): one copy of the samples per
 * frame, the copy's buffer transferred, the channel names only when they change.
 */
export class DeviceFrameWriter {
  /** The channels the receiver holds (the last ones sent). */
  private sent: readonly string[] | undefined;

  constructor(private readonly post: (message: DeviceFrameMessage, transfer: ArrayBuffer[]) => void) {}

  write(frame: Frame): void {
    const wire = samplesToWire(frame);
    const same = this.sent !== undefined && sameNames(this.sent, frame.channels);
    if (!same) this.sent = frame.channels;
    this.post({ kind: 'device-frame', frame: same ? wire : { ...wire, channels: [...frame.channels] } }, [
      wire.data.buffer as ArrayBuffer,
    ]);
  }
}

/** True when two channel lists are the same names in the same order (most often the same array). */
function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A frame port written on this thread: every frame `onFrame` hears, until the port is closed (a
 * device whose frames are produced on this thread).
 */
export function framePortOf(onFrame: (listener: (frame: Frame) => void) => () => void): FramePort {
  const { port1, port2 } = new MessageChannel();
  const writer = new DeviceFrameWriter((message, transfer) => {
    port1.postMessage(message, transfer);
  });
  const stop = onFrame((frame) => {
    writer.write(frame);
  });
  return {
    port: port2,
    close: () => {
      stop();
      port1.close();
    },
  };
}
