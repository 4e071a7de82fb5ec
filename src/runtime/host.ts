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
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isHeadsetdError } from '../errors.js';
import { NodeFailureError } from './port.js';
import { IMPLEMENTED_BUILTINS, loadBuiltinFactory } from '../executables/factories.js';
import { DeviceProxy } from './device-bridge.js';
import { StreamGraph } from './graph.js';
import type {
  FromHost,
  HostBoot,
  HostCommand,
  HostInit,
  SerializedError,
  StatusPush,
  ToHost,
} from './messages.js';
import { errorMessage } from './node-errors.js';
import { createFactoryResolver } from './resolve-node.js';
import { deliverIngestFrame, installTapChannel } from './tap-channel.js';

const port = parentPort;
if (port === null) throw new Error('host.ts runs only as a worker thread (see worker-runtime.ts)');
const boot = workerData as HostBoot;
const busy = new Int32Array(boot.busy);
const nodeOrder: string[] = [];
const nodeIndex = new Map<string, number>();

function post(message: FromHost): void {
  port?.postMessage(message);
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
  graph: StreamGraph;
  device: DeviceProxy | undefined;
}
let running: Running | undefined;

function snapshot(graph: StreamGraph): StatusPush {
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

// Warm up: load every built-in's code now, while no stream waits for it. A failure here shows up
// again, with its message, when a node of that kind starts.
for (const name of IMPLEMENTED_BUILTINS) void loadBuiltinFactory(name).catch(() => undefined);

function begin(init: HostInit): Running {
  installTapChannel({
    post: (message, transfer) => {
      port?.postMessage(message satisfies FromHost, transfer);
    },
  });
  const device = init.hasDevice ? new DeviceProxy(post) : undefined;
  const graph = new StreamGraph({
    streamId: init.streamId,
    dataDir: init.dataDir,
    access: init.access,
    ...(device === undefined ? {} : { device }),
    resolveFactory: createFactoryResolver({
      executablesDirs: init.executablesDirs,
      extraModules: init.extraModules,
    }),
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
  return { graph, device };
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

async function execute(graph: StreamGraph, command: HostCommand): Promise<void> {
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
    deliverIngestFrame(message.nodeId, message.frame);
    return;
  }
  if (current.device?.handle(message) === true || message.kind !== 'command') return;
  const { id, command } = message;
  queue = queue.then(() => run(current.graph, id, command));
});

function run(graph: StreamGraph, id: number, command: HostCommand): Promise<void> {
  return execute(graph, command).then(
    () => {
      post({ kind: 'reply', id, ok: true, push: snapshot(graph) });
    },
    (error: unknown) => {
      post({ kind: 'reply', id, ok: false, error: serialize(error), push: snapshot(graph) });
    },
  );
}
