/**
 * The worker-thread side of one running stream (docs/architecture.md §Data plane): runs the stream's graph,
 * answers the main thread's commands, and pushes a status snapshot (with new log lines) every
 * `snapshotIntervalMs` and soon after every state change.
 *
 * A worker boots before it knows its stream: it loads the runtime and the built-ins' code, starts
 * its heartbeat, and waits for an `init` message. The main thread keeps one such warm worker in
 * reserve, so starting a stream does not wait for module loading.
 *
 * Heartbeat: a counter in shared memory bumped every snapshot period; when a node blocks this
 * thread the counter stands still and the main thread terminates the worker. Before calling into a
 * node the graph writes the node's index into the shared `busy` cell, so the main thread can name
 * the node that hung the thread. An exception escaping every handler (a node's own timer callback
 * throwing) ends the worker; the main thread reports `stream_failed`.
 *
 * The runtime knows no executable by name: the worker's entry module (executables/stream-host.ts)
 * calls `runStreamHost` with the plugins that turn a node into its factory.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isHeadsetdError } from '../errors/catalog.js';
import { NodeFailureError } from './port.js';
import { DeviceProxy } from './device-bridge.js';
import { RunningGraph } from './running-graph.js';
import type {
  FromHost,
  HostBoot,
  HostCommand,
  HostInit,
  SerializedError,
  StatusPush,
  ToHost,
} from './thread-messages.js';
import type { NodeDef } from '../core/stream-model.js';
import type { NodeFactory } from '../core/node.js';
import { MainThreadChannel } from './main-thread-channel.js';
import { errorMessage } from '../core/error-message.js';

/** What the runtime is given to run nodes: the executables it knows, as a registry. */
export interface StreamHostPlugins {
  /** Loads every built-in's code, called while the worker waits in reserve; failures show at start. */
  warmUp(): void;
  /** The resolver of one stream: from a node to the factory that makes its instance. */
  createResolver(options: {
    executablesDirs: readonly string[];
    extraModules: readonly string[];
  }): (node: NodeDef) => Promise<NodeFactory>;
}

/** Runs this worker thread as a stream's host until its stream stops. */
export function runStreamHost(plugins: StreamHostPlugins): void {
  if (parentPort === null) throw new Error('host.ts runs only as a worker thread (see worker-runtime.ts)');
  const port = parentPort;
  const boot = workerData as HostBoot;
  const busy = new Int32Array(boot.busy);
  const nodeOrder: string[] = [];
  const nodeIndex = new Map<string, number>();

  function post(message: FromHost): void {
    port.postMessage(message);
  }

  function indexOf(nodeId: string): number {
    let index = nodeIndex.get(nodeId);
    if (index === undefined) {
      index = nodeOrder.push(nodeId) - 1;
      nodeIndex.set(nodeId, index);
    }
    return index;
  }

  /** The stream this worker runs, once `init` arrived. */
  interface Running {
    graph: RunningGraph;
    device: DeviceProxy | undefined;
    channel: MainThreadChannel;
  }
  let running: Running | undefined;

  function snapshot(graph: RunningGraph): StatusPush {
    const status = graph.status();
    for (const id of Object.keys(status.nodes)) indexOf(id);
    return { status, nodeOrder: [...nodeOrder], logs: graph.collectLogs() };
  }

  let pushQueued = false;
  function schedulePush(): void {
    if (pushQueued) return;
    pushQueued = true;
    setImmediate(() => {
      pushQueued = false;
      if (running !== undefined) post({ kind: 'snapshot', ...snapshot(running.graph) });
    });
  }

  Atomics.add(busy, 1, 1); // alive
  const heartbeat = setInterval(() => {
    Atomics.add(busy, 1, 1);
    if (running !== undefined) post({ kind: 'snapshot', ...snapshot(running.graph) });
  }, boot.snapshotIntervalMs);

  // Warm up: load every built-in's code now, while no stream waits for it.
  plugins.warmUp();

  function begin(init: HostInit): Running {
    const channel = new MainThreadChannel((message, transfer) => {
      port.postMessage(message satisfies FromHost, transfer);
    });
    const device = init.hasDevice ? new DeviceProxy(post) : undefined;
    const graph = new RunningGraph({
      streamId: init.streamId,
      dataDir: init.dataDir,
      access: init.access,
      ...(device === undefined ? {} : { device }),
      resolveFactory: plugins.createResolver({
        executablesDirs: init.executablesDirs,
        extraModules: init.extraModules,
      }),
      mainThreadLink: (nodeId) => channel.linkFor(nodeId),
      onChange: schedulePush,
      onEvent: (event) => {
        post({ kind: 'event', event });
      },
      onProcessGroup: (pgid, alive) => {
        post({ kind: 'process-group', pgid, alive });
      },
      onEnter: (nodeId) => {
        Atomics.store(busy, 0, nodeId === undefined ? 0 : indexOf(nodeId) + 1);
      },
    });
    return { graph, device, channel };
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

  async function execute(graph: RunningGraph, command: HostCommand): Promise<void> {
    switch (command.op) {
      case 'start':
        return graph.start(command.definition);
      case 'stop':
        await graph.stop();
        clearInterval(heartbeat);
        return;
      case 'pause':
        graph.pause();
        return;
      case 'resume':
        graph.resume();
        return;
      case 'update':
        return graph.update(command.definition);
      case 'signal':
        return graph.signalNode(command.nodeId, command.signal, command.payload);
    }
  }

  /** Commands run one at a time, in order: a stop never interleaves with a start still in progress. */
  let queue: Promise<void> = Promise.resolve();

  port.on('message', (message: ToHost) => {
    if (message.kind === 'init') {
      running ??= begin(message.init);
      return;
    }
    const current = running;
    if (current === undefined) return; // the main thread always sends init first
    if (message.kind === 'ingest-frame') {
      // An ingest node that is gone (stopped, removed by an edit) simply misses the frame.
      current.channel.deliver(message.nodeId, message.frame);
      return;
    }
    if (current.device?.handle(message) === true || message.kind !== 'command') return;
    const { id, command } = message;
    queue = queue.then(() => run(current.graph, id, command));
  });

  function run(graph: RunningGraph, id: number, command: HostCommand): Promise<void> {
    return execute(graph, command).then(
      () => {
        post({ kind: 'reply', id, ok: true, push: snapshot(graph) });
      },
      (error: unknown) => {
        post({ kind: 'reply', id, ok: false, error: serialize(error), push: snapshot(graph) });
      },
    );
  }
}
