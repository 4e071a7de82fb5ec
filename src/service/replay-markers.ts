/**
 * The replay device's markers into recordings and epochs (docs/device.md §Replay device): each
 * `marker` event of the device becomes an `annotate` signal to every live recorder and every
 * `epoch` node, in a running stream reading the device (`readsDevice`: an eeg-source or eeg_source node), with the
 * marker's text, its time in the frames as `onset` and its duration. A replayed file recorded again so keeps its annotations,
 * each at its sample. Wired by server.ts; nothing else knows of it.
 */
import type { Logger } from 'pino';
import type { Headset } from '../device/headset.js';
import type { Unsubscribe } from '../device/events.js';
import { resolveExecutable } from '../streams/executables/registry.js';
import type { StreamManager } from '../streams/manager.js';
import { readsDevice } from '../streams/eeg-readers.js';

const LIVE_STATES = new Set(['initialized', 'running', 'paused']);

function builtinOf(executable: string): string | undefined {
  try {
    const resolved = resolveExecutable(executable, []);
    return resolved.kind === 'builtin' ? resolved.descriptor.name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The (stream, node) of every live recorder and every live epoch node (which cuts its epochs
 * around markers) of a running stream with an eeg-source.
 */
function markedNodesOfTheDevice(manager: StreamManager): { streamId: string; nodeId: string }[] {
  const found: { streamId: string; nodeId: string }[] = [];
  for (const entry of manager.list()) {
    const definition = entry.definition;
    if (!readsDevice(definition)) continue;
    if (!manager.isLive(entry)) continue;
    // A recorder takes a marker from its start on, before its first frame too (it places it when
    // its file opens): the device's thread may pass a marker before the worker has written a frame.
    const markedNodes = new Set(
      definition.nodes
        .filter((n) => ['epoch', 'recorder'].includes(builtinOf(n.executable) ?? ''))
        .map((n) => n.id),
    );
    const status = manager.runtimeStatus(entry);
    for (const [nodeId, node] of Object.entries(status?.nodes ?? {})) {
      if (markedNodes.has(nodeId) && LIVE_STATES.has(node.state))
        found.push({ streamId: definition.id, nodeId });
    }
  }
  return found;
}

export function forwardMarkersToRecorders(
  device: Headset,
  manager: StreamManager,
  logger: Logger,
): Unsubscribe {
  return device.onEvent((event) => {
    if (event.type !== 'marker') return;
    const payload = {
      text: event.data.text,
      onset: event.timestamp,
      ...(event.data.duration === undefined ? {} : { duration: event.data.duration }),
    };
    for (const { streamId, nodeId } of markedNodesOfTheDevice(manager)) {
      manager.signalNode(streamId, nodeId, 'annotate', payload).catch((error: unknown) => {
        logger.warn({ err: error, streamId, nodeId }, `marker "${event.data.text}" not annotated`);
      });
    }
  });
}
