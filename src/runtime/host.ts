/**
 * The worker-thread side of one running stream (DESIGN.md §Runtime): runs the stream's graph,
 * answers the main thread's commands, and pushes a status snapshot (with new log lines) every
 * `snapshotIntervalMs` and soon after every state change. The periodic push doubles as the
 * heartbeat: when a node blocks this thread, pushes stop and the main thread terminates the worker.
 *
 * Before calling into a node the graph writes the node's index into the shared `busy` cell, so
 * the main thread can name the node that hung the thread. An exception escaping every handler
 * (a node's own timer callback throwing) ends the worker; the main thread reports `stream_failed`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isHeadsetdError } from '../errors.js';
import { DeviceProxy } from './device-bridge.js';
import { StreamGraph } from './graph.js';
import type { FromHost, HostCommand, HostInit, SerializedError, StatusPush, ToHost } from './messages.js';
import { errorMessage } from './node-errors.js';
import { createFactoryResolver } from './resolve-node.js';

const port = parentPort;
if (port === null) throw new Error('host.ts runs only as a worker thread (see worker-runtime.ts)');
const init = workerData as HostInit;
const busy = new Int32Array(init.busy);
const nodeOrder: string[] = [];
const nodeIndex = new Map<string, number>();
Atomics.add(busy, 1, 1); // alive

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

const device = init.hasDevice ? new DeviceProxy(post) : undefined;
const graph = new StreamGraph({
  streamId: init.streamId,
  dataDir: init.dataDir,
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

function snapshot(): StatusPush {
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
    post({ kind: 'snapshot', ...snapshot() });
  });
}

const heartbeat = setInterval(() => {
  Atomics.add(busy, 1, 1);
  post({ kind: 'snapshot', ...snapshot() });
}, init.snapshotIntervalMs);

function serialize(error: unknown): SerializedError {
  if (isHeadsetdError(error)) {
    return {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    };
  }
  return { code: 'internal_error', message: errorMessage(error) };
}

async function execute(command: HostCommand): Promise<void> {
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
  if (device?.handle(message) === true || message.kind !== 'command') return;
  const { id, command } = message;
  queue = queue.then(() => run(id, command));
});

function run(id: number, command: HostCommand): Promise<void> {
  return execute(command).then(
    () => {
      post({ kind: 'reply', id, ok: true, push: snapshot() });
    },
    (error: unknown) => {
      post({ kind: 'reply', id, ok: false, error: serialize(error), push: snapshot() });
    },
  );
}
