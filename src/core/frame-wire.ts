/**
 * Frames across a thread boundary: the structured-clone form of a frame (its samples in a buffer
 * the sender transfers), and the device's frames on their way to a stream's worker. The device's
 * frames reach a worker from whichever thread produces them (the device's thread, or the main
 * thread for a device that produces there), written by one {@link DeviceFrameWriter} per
 * receiving worker and read by one {@link DeviceFrameReader}.
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
 * A device frame on the wire in the object form: `channels` only when they differ from the
 * previous frame sent to that worker, which they almost never do, so that 21 names are not cloned
 * with every frame.
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

/**
 * A device frame as a stream's worker (streams/runtime/device-bridge.ts `DeviceProxy`) or the main
 * thread receives it: most often {@link packFrame}'s one buffer, which crosses the thread boundary
 * as a transferred buffer alone; a frame that carries text (new channel names, units, an
 * annotation, a marker) as the object form.
 */
export type DeviceFrameMessage = ArrayBuffer | { kind: 'device-frame'; frame: DeviceWireFrame };

/**
 * Writes the device's frames to one receiver (a stream's worker): one copy of the samples per
 * frame, the copy's buffer transferred, the channel names only when they change.
 */
export class DeviceFrameWriter {
  /** The channels the receiver holds (the last ones sent). */
  private sent: readonly string[] | undefined;

  constructor(private readonly post: (message: DeviceFrameMessage, transfer: ArrayBuffer[]) => void) {}

  write(frame: Frame): void {
    const same = this.sent !== undefined && sameNames(this.sent, frame.channels);
    if (same && frame.units === undefined && frame.annotation === undefined && frame.marker === undefined) {
      const packed = packFrame(frame);
      this.post(packed, [packed]);
      return;
    }
    this.sent = frame.channels;
    const wire = samplesToWire(frame);
    this.post({ kind: 'device-frame', frame: { ...wire, channels: [...frame.channels] } }, [
      wire.data.buffer as ArrayBuffer,
    ]);
  }
}

/** Whether a thread's message is a device frame, in either form. */
export function isDeviceFrameMessage(message: unknown): message is DeviceFrameMessage {
  return (
    message instanceof ArrayBuffer ||
    (typeof message === 'object' &&
      message !== null &&
      (message as { kind?: unknown }).kind === 'device-frame')
  );
}

/** Reads what one {@link DeviceFrameWriter} writes: frames with the channels it last sent. */
export class DeviceFrameReader {
  private channels: readonly string[] = Object.freeze([]);

  /**
   * The frame of a message. The frame is this thread's own (made from the message), so a receiver
   * may hand it to every consumer, none of which alters it.
   */
  read(message: DeviceFrameMessage): Frame {
    if (message instanceof ArrayBuffer) return unpackFrame(message, this.channels);
    const { frame } = message;
    if (frame.channels !== undefined) this.channels = Object.freeze(frame.channels);
    (frame as { channels: readonly string[] }).channels = this.channels;
    return frame as Frame;
  }
}

/**
 * The packed form: eight float64 (seq, timestamp, sampleRate, which optional numbers are present,
 * range, highpass, lostSamples, createdAt), then the samples as float32. Deserializing a message
 * that is one buffer costs the receiving thread a fraction of an object's properties (docs/
 * performance.md §The device's frames as one buffer).
 */
const HEADER = 8;
const HEADER_BYTES = HEADER * 8;
const DISCONTINUITY = 1;
const RANGE = 2;
const HIGHPASS = 4;
const LOST = 8;
const CREATED = 16;

/** A frame without text (channels, units, annotation, marker) in one buffer of its own. */
export function packFrame(frame: Frame): ArrayBuffer {
  const buffer = new ArrayBuffer(HEADER_BYTES + frame.data.length * 4);
  const header = new Float64Array(buffer, 0, HEADER);
  header[0] = frame.seq;
  header[1] = frame.timestamp;
  header[2] = frame.sampleRate;
  header[3] =
    (frame.discontinuity === true ? DISCONTINUITY : 0) |
    (frame.range === undefined ? 0 : RANGE) |
    (frame.highpass === undefined ? 0 : HIGHPASS) |
    (frame.lostSamples === undefined ? 0 : LOST) |
    (frame.createdAt === undefined ? 0 : CREATED);
  header[4] = frame.range ?? 0;
  header[5] = frame.highpass ?? 0;
  header[6] = frame.lostSamples ?? 0;
  header[7] = frame.createdAt ?? 0;
  new Float32Array(buffer, HEADER_BYTES).set(frame.data);
  return buffer;
}

/** The frame {@link packFrame} packed, with `channels`. */
export function unpackFrame(buffer: ArrayBuffer, channels: readonly string[]): Frame {
  const header = new Float64Array(buffer, 0, HEADER);
  const flags = header[3] as number;
  return {
    seq: header[0] as number,
    timestamp: header[1] as number,
    sampleRate: header[2] as number,
    channels,
    data: new Float32Array(buffer, HEADER_BYTES),
    ...((flags & DISCONTINUITY) === 0 ? {} : { discontinuity: true }),
    ...((flags & RANGE) === 0 ? {} : { range: header[4] as number }),
    ...((flags & HIGHPASS) === 0 ? {} : { highpass: header[5] as number }),
    ...((flags & LOST) === 0 ? {} : { lostSamples: header[6] as number }),
    ...((flags & CREATED) === 0 ? {} : { createdAt: header[7] as number }),
  };
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
