/**
 * Messages between WorkerRuntime (main thread) and a data-plane worker's host, which runs many
 * streams: every message about a stream names it. Everything is structured-cloned; frames
 * transfer their sample buffer.
 */
import type { AccessPolicy } from '../../core/access-policy.js';
import type { StreamDefinition } from '../../core/stream-model.js';
import type { NodeFailure, RuntimeEvent, RuntimeStreamStatus } from './stream-runtime.js';
import type { MessagePort } from 'node:worker_threads';
import type { WireFrame } from '../../core/frame-wire.js';
import type { NodeLogLine } from '../../core/node.js';

/** What every worker is started with (`workerData`), before it runs any stream. */
export interface HostBoot {
  /**
   * Two Int32 cells shared with the main thread: [0] = 1 + index (in the pushes' `nodeOrder`) of
   * the node running code now, 0 for none; [1] = heartbeat counter, incremented every snapshot
   * period. Shared memory lets the watchdog see the worker alive even when the main thread was too
   * busy to read its messages.
   */
  busy: SharedArrayBuffer;
  /** Status push (and heartbeat) period, ms. */
  snapshotIntervalMs: number;
  /** Whether eeg-source nodes can subscribe to a device through the main thread. */
  hasDevice: boolean;
  /** The main thread's wall-clock offset (core/wall-clock.ts): every thread stamps on one clock. */
  wallClockOffsetMs: number;
}

/** A node of one of the worker's streams. */
export interface NodeRef {
  streamId: string;
  nodeId: string;
}

/** A stream the worker is given to run (its commands follow). */
export interface HostInit {
  streamId: string;
  dataDir: string;
  executablesDirs: string[];
  extraModules: string[];
  /** The rules the stream's sockets apply (websocket nodes). */
  access: AccessPolicy;
  /** The memory of the stream's status board (status-board.ts). */
  board: SharedArrayBuffer;
}

export type HostCommand =
  | { op: 'start'; definition: StreamDefinition }
  | { op: 'stop' }
  | { op: 'pause' }
  | { op: 'resume' }
  | { op: 'update'; definition: StreamDefinition }
  | { op: 'signal'; nodeId: string; signal: string; payload: Record<string, unknown> };

export type ToHost =
  | { kind: 'init'; init: HostInit }
  | { kind: 'command'; id: number; streamId: string; command: HostCommand }
  | {
      kind: 'device-subscribed';
      subscription: number;
      /** The channels granted, as frames name them; absent: every channel of the first frame. */
      channels?: string[];
      error?: string;
      /** The catalog code of a refusal (`channels_unavailable`), and its details. */
      code?: string;
      details?: Record<string, unknown>;
    }
  /**
   * The port the device's frames come on from now on (device-bridge.ts); never sent to the device's
   * own thread, which takes its frames as it makes them.
   */
  | { kind: 'device-port'; port: MessagePort }
  /** The device holds a subscription's frames back (a forced reset) until one flows again. */
  | { kind: 'device-hold'; subscription: number; reason: string }
  /** A frame for an ingest node (StreamRuntime.feed); its buffer is transferred. */
  | { kind: 'ingest-frame'; streamId: string; nodeId: string; frame: WireFrame };

export interface SerializedError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
  /** Set when the error was a NodeFailureError, so that the main thread rebuilds one. */
  nodeFailure?: NodeFailure;
}

/** One stream's status and new log lines, with the worker's node order. */
export interface StatusPush {
  /** The stream's snapshots are numbered: the status board's and the posted ones share the count. */
  seq: number;
  status: RuntimeStreamStatus;
  /** The worker's nodes (of all its streams) in the order of the `busy` indices. */
  nodeOrder: NodeRef[];
  logs: { nodeId: string; lines: NodeLogLine[] }[];
}

export type FromHost =
  | { kind: 'snapshot'; streamId: string; push: StatusPush }
  | { kind: 'reply'; id: number; streamId: string; ok: true; push: StatusPush }
  | { kind: 'reply'; id: number; streamId: string; ok: false; error: SerializedError; push: StatusPush }
  | { kind: 'event'; event: RuntimeEvent }
  | { kind: 'process-group'; pgid: number; alive: boolean }
  | {
      kind: 'device-subscribe';
      subscription: number;
      channels: string[];
      sampleRate?: number;
      gain?: number;
      owner?: NodeRef;
    }
  | { kind: 'device-unsubscribe'; subscription: number }
  /** A subscription's frames are held back (why), or flow again (no `problem`): its node's event. */
  | { kind: 'device-condition'; subscription: number; problem?: string }
  /** A tap node's frame for the main thread (StreamRuntime.tap); its buffer is transferred. */
  | { kind: 'tap-frame'; streamId: string; nodeId: string; frame: WireFrame };
