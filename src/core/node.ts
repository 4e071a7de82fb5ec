/**
 * What a running node is to the runtime host. Built-in executables and the external-process
 * adapter both implement `NodeInstance`; the host wires pipes, metrics and supervision around it.
 */
import type { AccessPolicy } from './access-policy.js';
import type { MessagePort } from 'node:worker_threads';
import type { Frame } from './frame.js';

export type RestartPolicy = 'no' | 'on-failure' | 'always';

export interface NodeLogLine {
  /** ms since the Unix epoch. */
  timestamp: number;
  stream: 'stderr' | 'event';
  line: string;
}

/** What a subscriber asks of the device's EEG (see {@link DeviceFrameSource.subscribe}). */
export interface DeviceRequest {
  channels: readonly string[];
  sampleRate?: number;
  gain?: number;
  frameMs?: number;
  owner?: { streamId: string; nodeId: string };
}

/** Frames from the headset's acquisition, as the device layer delivers them to an eeg-source. */
export interface DeviceFrameSource {
  /**
   * Subscribes to the device's EEG. `channels` are upper-case electrode names; `sampleRate` the
   * rate the subscriber wants (acquisition starts at it when idle), `gain` the amplifier gain it
   * wants (likewise: acquisition already running keeps its own). Returns the unsubscribe function;
   * the last unsubscribe stops an acquisition that subscribers started (never one started via /system).
   * An empty `channels` means every channel acquired when the first frame comes.
   *
   * Frames always carry every channel asked for: naming a channel the device does not acquire is
   * refused (`channels_unavailable`), and while the device cannot deliver them (its configuration
   * dropped some, a forced reset stopped acquisition) frames are held back and `onCondition` hears
   * why, then `undefined` when they flow again; the first frame after that has `discontinuity`.
   * `owner` names the node, so that the main thread can report the condition as the stream's.
   * `frameMs` asks for frames of that duration instead of the device's (core/frame-joiner.ts),
   * joined on the subscriber's thread (core/frame-subscription.ts).
   */
  subscribe(
    request: DeviceRequest,
    onFrame: (frame: Frame) => void,
    onCondition?: (problem: string | undefined) => void,
  ): Promise<() => void>;
}

/** A subscription the device accepted (see {@link DeviceFeed.open}). */
export interface OpenSubscription {
  /**
   * The channels it takes, as the device's frames name them (`FP1` is `Fp1`); undefined: every
   * channel of the first frame it gets, kept for its life.
   */
  readonly channels: readonly string[] | undefined;
  /** Ends it; the last one open releases the acquisition the subscriptions started. */
  close(): void;
}

/**
 * The device's EEG as its own thread serves it to the threads of the subscribers (a stream's
 * worker: streams/runtime/device-bridge.ts): control per subscription, every frame once per
 * listener. What each subscription takes of a frame is worked out on the subscriber's thread
 * (core/frame-subscription.ts `FrameSubscription`; `frameSourceOf` makes a
 * {@link DeviceFrameSource} of a feed on one thread).
 */
export interface DeviceFeed {
  /**
   * Opens a subscription, or refuses it as {@link DeviceFrameSource.subscribe} documents
   * (`channels_unavailable`, or the device's own refusal such as `device_busy`); acquisition is
   * held for it from then on. `onHold` hears when the device stops delivering under it (a forced
   * reset): its frames are held until one flows again.
   */
  open(request: DeviceRequest, onHold?: (reason: string) => void): Promise<OpenSubscription>;
  /** Every frame the device acquires, to `listener` on this thread until the returned function is called. */
  onFrame(listener: (frame: Frame) => void): () => void;
  /**
   * A port on which the thread that produces the device's frames writes every one of them, as
   * `device-frame` messages (core/frame-wire.ts), until it is closed: its `port` is handed to the
   * thread that reads them. Absent: the frames are produced on this thread, and written to a port
   * from `onFrame` (core/frame-wire.ts `framePortOf`).
   */
  framePort?(): FramePort;
}

/** The device's frames on a port of their own (see {@link DeviceFeed.framePort}). */
export interface FramePort {
  /** The reading end: transferred to the thread that reads the frames. */
  readonly port: MessagePort;
  /** Stops writing frames to it and closes it. */
  close(): void;
}

/** A node's line to the service's main thread: one per node, named by the node's id. */
export interface MainThreadLink {
  /** Sends a frame to the main thread (StreamRuntime.tap); the frame itself is not kept. */
  send(frame: Frame): void;
  /** Receives the frames the main thread feeds this node (StreamRuntime.feed) until the returned function is called. */
  receive(onFrame: (frame: Frame) => void): () => void;
}

export interface NodeContext {
  readonly streamId: string;
  /** The stream's `meta.name`, when it has one. */
  readonly streamName?: string;
  readonly nodeId: string;
  /** The node's config as validated by its executable's schema. */
  readonly config: Readonly<Record<string, unknown>>;
  /** Sends a frame downstream on an output port. Never blocks: each pipe applies its own policy. */
  emit(port: string, frame: Frame): void;
  /** Appends a line to the node's log (GET .../nodes/{nodeId}/logs). */
  log(line: string, stream?: NodeLogLine['stream']): void;
  /** Reports a failure after start; the supervisor restarts the node per its restart policy. */
  fail(error: Error): void;
  /** Extra fields shown in the node's status (for example a websocket's bound `port`). */
  setInfo(info: Record<string, unknown>): void;
  /** The device's EEG; present in hosts that have a device attached. */
  readonly device?: DeviceFrameSource;
  /** Directory of the service's data (`--data-dir`). */
  readonly dataDir: string;
  /**
   * The rules every socket a node opens applies to its requests, the API's own (Host, Origin,
   * Sec-Fetch-Site, token). Absent in hosts that know no service: loopback names only then.
   */
  readonly access?: AccessPolicy;
  /** Counts frames the node itself lost (a slow client, a flooding child) in its `framesDropped`. */
  countDropped(frames: number): void;
  /**
   * Adds to a counter of the node's own, shown beside the common ones in its status `metrics` (a
   * recorder's `clippedSamples`) and kept across restarts like them. Absent in hosts that keep no
   * metrics.
   */
  countMetric?(name: string, amount: number): void;
  /**
   * Something a person should know while the node goes on (a recording that clips): a warning
   * event on GET /system/events. Call it for a change of condition, not for every frame. Absent in
   * hosts that raise no events.
   */
  warn?(message: string): void;
  /**
   * Declares a child process group the node leads, so that the main thread can SIGKILL it if the
   * stream's worker dies or is terminated before the node could stop it (a terminated worker runs
   * no exit hooks).
   */
  trackProcessGroup(pgid: number): void;
  /** The group the node declared is gone. */
  untrackProcessGroup(pgid: number): void;
  /**
   * Frames exchanged with the service's main thread (the `tap` and `ingest` built-ins). Present
   * only inside a stream's worker; a graph run in-process (a test) has no main thread to reach.
   */
  readonly mainThread?: MainThreadLink;
}

export interface NodeInstance {
  /** Resolves when the node is ready for frames; rejects (with a message for a person) when it cannot start. */
  start(): Promise<void>;
  /** A frame arrived on an input port. Must not keep a reference to mutate: frames are shared. */
  onFrame?(port: string, frame: Frame): void;
  /** Sources stop emitting until resume; the first frame after resume has `discontinuity: true`. */
  pause?(): void;
  resume?(): void;
  /** A custom signal (anything but start/stop/pause/resume/restart), with its payload. */
  signal?(name: string, payload: Readonly<Record<string, unknown>>): void | Promise<void>;
  /** Releases every resource (timers, sockets, processes). Must be safe to call more than once. */
  stop(): Promise<void>;
}

export type NodeFactory = (context: NodeContext) => NodeInstance;
