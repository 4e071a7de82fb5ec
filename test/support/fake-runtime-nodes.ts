/**
 * The few node behaviours the FakeRuntime models so that it meets the runtime contract the way the
 * real runtime does with real nodes: where a fed frame goes, what an eeg-source tells of its
 * device, and what the test nodes of test/runtime/fixtures/test-nodes.ts do once running.
 */
import type { DeviceFrameSource } from '../../src/core/node.js';
import type { StreamDefinition } from '../../src/core/stream-model.js';
import type { RuntimeEvent } from '../../src/streams/runtime/stream-runtime.js';

/** The `tap` nodes an `ingest` node pipes into directly: where a frame fed to it arrives. */
export function tapsFedBy(stream: StreamDefinition, nodeId: string): string[] {
  const source = stream.nodes.find((n) => n.id === nodeId);
  if (source?.executable !== 'ingest') return [];
  const taps = new Set(stream.nodes.filter((n) => n.executable === 'tap').map((n) => n.id));
  return stream.pipes.filter((p) => p.source === nodeId && taps.has(p.destination)).map((p) => p.destination);
}

/**
 * Subscribes every eeg-source of the stream to the device, as the real eeg-source does (owner named,
 * so that its conditions are the node's events); answers what ends the subscriptions.
 */
export async function deviceSubscriptions(
  device: DeviceFrameSource | undefined,
  stream: StreamDefinition,
  emit: (event: RuntimeEvent) => void,
): Promise<(() => void)[]> {
  if (device === undefined) return [];
  const releases: (() => void)[] = [];
  for (const node of stream.nodes.filter((n) => n.executable === 'eeg-source')) {
    const named = node.config?.channels;
    const channels = Array.isArray(named) ? named.map((c) => String(c).toUpperCase()) : [];
    const owner = { streamId: stream.id, nodeId: node.id };
    releases.push(
      await device.subscribe(
        { channels, owner },
        () => undefined,
        (problem) => {
          emit(
            problem === undefined
              ? { type: 'node_recovered', ...owner, message: 'it delivers every channel again' }
              : { type: 'node_degraded', ...owner, message: problem },
          );
        },
      ),
    );
  }
  return releases;
}

/**
 * The events the test nodes raise once their stream runs: `test-throw` crashes on its first frame
 * (when a pipe feeds it), restarted unless its `restart` policy is `no`; `test-warn` warns as it
 * starts.
 */
export function modelledEvents(stream: StreamDefinition): RuntimeEvent[] {
  const events: RuntimeEvent[] = [];
  for (const node of stream.nodes) {
    const ids = { streamId: stream.id, nodeId: node.id };
    if (node.executable === 'test-throw' && stream.pipes.some((p) => p.destination === node.id)) {
      const willRestart = node.config?.restart !== 'no';
      events.push({ type: 'node_crashed', ...ids, message: 'test-throw: deliberate failure', willRestart });
    }
    if (node.executable === 'test-warn') {
      events.push({ type: 'node_warning', ...ids, message: 'test-warn: deliberate warning' });
    }
  }
  return events;
}
