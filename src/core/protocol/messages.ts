/**
 * The messages of the external-node protocol (docs/node-protocol.md), independent of their
 * encoding. Both codecs (ndjson.ts, binary.ts) decode to and encode from these objects, so the
 * process adapter and the SDK never see bytes.
 */
import type { Frame } from '../frame.js';

/** The version announced in the `config` message; bumped on incompatible changes. */
export const PROTOCOL_VERSION = 1;

/** The two wire encodings; `ndjson` is the default. */
export type ProtocolEncoding = 'ndjson' | 'binary';

export const PROTOCOL_ENCODINGS: readonly ProtocolEncoding[] = ['ndjson', 'binary'];

/**
 * The largest message either side accepts, in bytes (a JSON line without its newline, or a binary
 * message without its length prefix). 16 MiB is about 200 000 samples of 21 channels: far more than
 * any sane frame, small enough that a runaway child cannot make the worker grow without bound.
 */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Parent → child, first message: what the node runs with. */
export interface ConfigMessage {
  type: 'config';
  version: number;
  streamId: string;
  nodeId: string;
  encoding: ProtocolEncoding;
  config: Record<string, unknown>;
}

/** Either direction: a frame on a named port (an input port towards the child, an output port from it). */
export interface FrameMessage {
  type: 'frame';
  port: string;
  frame: Frame;
}

/** Parent → child: `stop`, `pause`, `resume` or a custom signal with its payload. */
export interface SignalMessage {
  type: 'signal';
  name: string;
  payload: Record<string, unknown>;
}

/** Child → parent: the node is ready for frames; optionally the ports it serves. */
export interface ReadyMessage {
  type: 'ready';
  inputs?: string[];
  outputs?: string[];
}

/** Child → parent: the node failed and wants to be restarted (per its restart policy). */
export interface ErrorMessage {
  type: 'error';
  message: string;
}

/** Child → parent: fields shown in the node's status (merged into `info`). */
export interface InfoMessage {
  type: 'info';
  info: Record<string, unknown>;
}

export type ParentMessage = ConfigMessage | FrameMessage | SignalMessage;
export type ChildMessage = ReadyMessage | FrameMessage | ErrorMessage | InfoMessage;
export type ProtocolMessage = ParentMessage | ChildMessage;

/** A message that breaks the protocol (malformed, oversized, unknown type). The stream cannot resync after it. */
// eslint-disable-next-line no-restricted-syntax -- core/ lies below the catalogue: the runtime makes a child's fault its node's failure.
export class ProtocolError extends Error {
  /** Messages that a decoder completed in the same chunk before it met the error, in order. */
  decoded: ProtocolMessage[] = [];

  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/** Decodes a byte stream chunk by chunk; chunks may split messages anywhere. */
export interface MessageDecoder {
  /**
   * Returns every message completed by `chunk`. Throws `ProtocolError` (carrying in `decoded` the
   * messages of the chunk that came before the fault); after that the decoder is dead.
   */
  push(chunk: Uint8Array): ProtocolMessage[];
  /** Bytes held for an incomplete message. */
  readonly pendingBytes: number;
}

export function isEncoding(value: unknown): value is ProtocolEncoding {
  return value === 'ndjson' || value === 'binary';
}

/** Runs `step`; a `ProtocolError` it throws leaves carrying `decoded`, the messages completed before it. */
export function withDecoded<T>(decoded: ProtocolMessage[], step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof ProtocolError) error.decoded = [...decoded];
    throw error;
  }
}
