/**
 * The worker-thread side of the data plane (docs/architecture.md §Data plane): a worker of the
 * pool runs many streams, each its own graph; it answers the main thread's commands (each naming
 * its stream, run in order per stream) and pushes each stream's status snapshot (with new log
 * lines) every `snapshotIntervalMs` and soon after every state change.
 *
 * A worker boots before it runs any stream: it loads the runtime and the built-ins' code, starts
 * its heartbeat, and waits for `init` messages, one per stream it is given.
 *
 * Heartbeat: a counter in shared memory bumped every snapshot period; when a node blocks this
 * thread the counter stands still and the main thread terminates the worker. Before calling into a
 * node a graph writes the node's index into the shared `busy` cell, so the main thread can name
 * the stream and the node that hung the thread (and restart the worker's other streams elsewhere).
 * An exception escaping every handler (a node's own timer callback throwing) ends the worker.
 *
 * The runtime knows no executable by name: the worker's entry module (streams/executables/stream-host.ts)
 * calls `runStreamHost` with the plugins that turn a node into its factory.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { isHeadsetdError } from '../../core/errors.js';
import { NodeFailureError } from './stream-runtime.js';
import { DeviceProxy } from './device-bridge.js';
import type { LocalFrames } from '../../core/stream-thread.js';
import { RunningGraph } from './running-graph.js';
import type {
  FromHost,
  HostBoot,
  HostCommand,
  HostInit,
  NodeRef,
  SerializedError,
  StatusPush,
  ToHost,
} from './thread-messages.js';
import type { NodeDef } from '../../core/stream-model.js';
import type { NodeFactory } from '../../core/node.js';
import { MainThreadChannel } from './main-thread-channel.js';
import { StatusBoard } from './status-board.js';
import { errorMessage } from '../../core/error-message.js';
import { adoptWallClockOffset } from '../../core/wall-clock.js';

/** What the runtime is given to run nodes: the executables it knows, as a registry. */
export interface StreamHostPlugins {
  /** Loads every built-in's code, called while the worker waits for streams; failures show at start. */
  warmUp(): void;
  /** The resolver of one stream: from a node to the factory that makes its instance. */
  createResolver(options: {
    /** The service's data directory (transpiled TypeScript nodes are cached there). */
    dataDir: string;
    executablesDirs: readonly string[];
    extraModules: readonly string[];
  }): (node: NodeDef) => Promise<NodeFactory>;
}

/** A running stream, worker side (main side: worker-runtime.ts's RunningStream); its graph is the RunningGraph. */
interface HostedStream {
  readonly graph: RunningGraph;
  readonly channel: MainThreadChannel;
  /** Where the snapshot period's status goes without a message (status-board.ts). */
  readonly board: StatusBoard;
  /** The number of the stream's last snapshot, posted or written. */
  snapshots: number;
  /** Its commands, one at a time: a stop never interleaves with a start still in progress. */
  queue: Promise<void>;
}

function serialize(error: unknown): SerializedError {
  if (isHeadsetdError(error)) {
    return {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
      ...(error instanceof NodeFailureError ? { nodeFailure: error.failure } : {}),
    };
  }
  return { code: 'internal_error', message: errorMessage(error) };
}

/** The worker thread's side of the data plane (its main-side handle is stream-worker.ts's StreamWorker): runs the HostedStreams the worker is given. */
class StreamHost {
  private readonly streams = new Map<string, HostedStream>();
  private readonly busy: Int32Array;
  private readonly nodeOrder: NodeRef[] = [];
  private readonly nodeIndex = new Map<string, number>();
  private readonly device: DeviceProxy | undefined;
  private readonly pushQueued = new Set<string>();
  /** How many of `nodeOrder` the main thread was last posted. */
  private orderPosted = 0;

  constructor(
    private readonly port: MessagePort,
    boot: HostBoot,
    private readonly plugins: StreamHostPlugins,
    localFrames?: LocalFrames,
  ) {
    this.busy = new Int32Array(boot.busy);
    this.device = boot.hasDevice
      ? new DeviceProxy((message) => {
          this.post(message);
        }, localFrames)
      : undefined;
    Atomics.add(this.busy, 1, 1); // alive
    const beat = setInterval(() => {
      Atomics.add(this.busy, 1, 1);
      for (const streamId of this.streams.keys()) this.refresh(streamId);
    }, boot.snapshotIntervalMs);
    // Warm up: load every built-in's code now, while no stream waits for it.
    plugins.warmUp();
    port.on('message', (message: ToHost) => {
      this.onMessage(message);
    });
    // A host on a port of its own (in the device's thread) ends with the port; a worker's, with the worker.
    port.on('close', () => {
      clearInterval(beat);
      this.device?.close();
      port.removeAllListeners();
    });
  }

  private post(message: FromHost): void {
    this.port.postMessage(message);
  }

  private indexOf(streamId: string, nodeId: string): number {
    const key = `${streamId}\u0000${nodeId}`;
    let index = this.nodeIndex.get(key);
    if (index === undefined) {
      index = this.nodeOrder.push({ streamId, nodeId }) - 1;
      this.nodeIndex.set(key, index);
    }
    return index;
  }

  private snapshot(streamId: string, stream: HostedStream): StatusPush {
    const status = stream.graph.status();
    for (const id of Object.keys(status.nodes)) this.indexOf(streamId, id);
    this.orderPosted = this.nodeOrder.length;
    return {
      seq: ++stream.snapshots,
      status,
      nodeOrder: [...this.nodeOrder],
      logs: stream.graph.collectLogs(),
    };
  }

  private push(streamId: string): void {
    const stream = this.streams.get(streamId);
    if (stream !== undefined)
      this.post({ kind: 'snapshot', streamId, push: this.snapshot(streamId, stream) });
  }

  /**
   * The snapshot period's status: on the stream's board, read by the main thread when asked,
   * unless something must arrive (log lines, nodes the main thread does not know yet, a status
   * too large for the board): then posted.
   */
  private refresh(streamId: string): void {
    const stream = this.streams.get(streamId);
    if (stream === undefined) return;
    const status = stream.graph.status();
    const known = Object.keys(status.nodes).every((id) => this.nodeIndex.has(`${streamId}\u0000${id}`));
    if (known && this.orderPosted === this.nodeOrder.length && !stream.graph.hasLogs()) {
      if (stream.board.write({ seq: stream.snapshots + 1, status })) {
        stream.snapshots++;
        return;
      }
    }
    this.push(streamId);
  }

  private schedulePush(streamId: string): void {
    if (this.pushQueued.has(streamId)) return;
    this.pushQueued.add(streamId);
    setImmediate(() => {
      this.pushQueued.delete(streamId);
      this.push(streamId);
    });
  }

  private begin(init: HostInit): HostedStream {
    const { streamId } = init;
    const channel = new MainThreadChannel(streamId, (message, transfer) => {
      this.port.postMessage(message satisfies FromHost, transfer);
    });
    const graph = new RunningGraph({
      streamId,
      dataDir: init.dataDir,
      access: init.access,
      ...(this.device === undefined ? {} : { device: this.device }),
      resolveFactory: this.plugins.createResolver({
        dataDir: init.dataDir,
        executablesDirs: init.executablesDirs,
        extraModules: init.extraModules,
      }),
      mainThreadLink: (nodeId) => channel.linkFor(nodeId),
      onChange: () => {
        this.schedulePush(streamId);
      },
      onEvent: (event) => {
        // The status first: whoever hears an event (a node crashed) and asks the status then
        // reads the state the event speaks of, not the one before it.
        this.push(streamId);
        this.post({ kind: 'event', event });
      },
      onProcessGroup: (pgid, alive) => {
        this.post({ kind: 'process-group', pgid, alive });
      },
      onEnter: (nodeId) => {
        Atomics.store(this.busy, 0, nodeId === undefined ? 0 : this.indexOf(streamId, nodeId) + 1);
      },
    });
    return { graph, channel, board: new StatusBoard(init.board), snapshots: 0, queue: Promise.resolve() };
  }

  private onMessage(message: ToHost): void {
    if (this.device?.handle(message) === true) return;
    switch (message.kind) {
      case 'init':
        if (!this.streams.has(message.init.streamId))
          this.streams.set(message.init.streamId, this.begin(message.init));
        return;
      case 'ingest-frame':
        // An ingest node that is gone (stopped, removed by an edit) simply misses the frame.
        this.streams.get(message.streamId)?.channel.deliver(message.nodeId, message.frame);
        return;
      case 'command': {
        const stream = this.streams.get(message.streamId);
        if (stream === undefined) {
          const error = serialize(new Error(`this worker does not run stream ${message.streamId}`));
          this.post({
            kind: 'reply',
            id: message.id,
            streamId: message.streamId,
            ok: false,
            error,
            push: { seq: 0, status: { nodes: {}, pipes: {} }, nodeOrder: [...this.nodeOrder], logs: [] },
          });
          return;
        }
        const { id, streamId, command } = message;
        stream.queue = stream.queue.then(() => this.run(streamId, stream, id, command));
        return;
      }
      default:
        return;
    }
  }

  private async execute(stream: HostedStream, command: HostCommand): Promise<void> {
    switch (command.op) {
      case 'start':
        return stream.graph.start(command.definition);
      case 'stop':
        return stream.graph.stop();
      case 'pause':
        stream.graph.pause();
        return;
      case 'resume':
        stream.graph.resume();
        return;
      case 'update':
        return stream.graph.update(command.definition);
      case 'signal':
        return stream.graph.signalNode(command.nodeId, command.signal, command.payload);
    }
  }

  private async run(streamId: string, stream: HostedStream, id: number, command: HostCommand): Promise<void> {
    let failure: unknown;
    let ok = true;
    try {
      await this.execute(stream, command);
    } catch (error) {
      ok = false;
      failure = error;
    }
    const push = this.snapshot(streamId, stream);
    // A stopped stream, or one that failed to start (its nodes are stopped again), leaves the worker.
    if (command.op === 'stop' || (command.op === 'start' && !ok)) this.streams.delete(streamId);
    if (ok) this.post({ kind: 'reply', id, streamId, ok: true, push });
    else this.post({ kind: 'reply', id, streamId, ok: false, error: serialize(failure), push });
  }
}

/** Runs this worker thread as a host of streams, for as long as the main thread keeps it. */
export function runStreamHost(plugins: StreamHostPlugins): void {
  if (parentPort === null) throw new Error('host.ts runs only as a worker thread (see worker-runtime.ts)');
  const boot = workerData as HostBoot;
  adoptWallClockOffset(boot.wallClockOffsetMs);
  new StreamHost(parentPort, boot, plugins);
}

/**
 * Runs a host of streams on `port` in a thread that does other work too: the device's thread,
 * whose frames the host's eeg-source nodes take as the thread makes them (`localFrames`). The
 * thread has adopted the main thread's wall clock already. The host ends when the port closes.
 */
export function hostStreamsOn(
  port: MessagePort,
  boot: HostBoot,
  plugins: StreamHostPlugins,
  localFrames: LocalFrames,
): void {
  new StreamHost(port, boot, plugins, localFrames);
}
