/**
 * The `lsl-outlet` and `lsl-inlet` built-ins run outside a stream, on the LSL ports a test gives:
 * what they emit and the status they report, awaited by content.
 */
import { LOOPBACK_ONLY } from '../../src/core/access-policy.js';
import type { Frame } from '../../src/core/frame.js';
import type { NodeContext, NodeInstance } from '../../src/core/node.js';
import { createLslInlet } from '../../src/streams/executables/lsl-inlet.js';
import { createLslOutlet } from '../../src/streams/executables/lsl-outlet.js';
import type { LslPorts } from './liblsl.js';

export interface LslNode {
  node: NodeInstance;
  frames: Frame[];
  info: Record<string, unknown>;
  logs: string[];
  /** Resolves once `check` holds (checked at every frame and status change). */
  until(check: () => boolean): Promise<void>;
  /** Samples emitted so far. */
  samples(): number;
}

function harness(
  ports: LslPorts,
  streamId: string,
  nodeId: string,
  config: Record<string, unknown>,
  create: (context: NodeContext) => NodeInstance,
  streamName?: string,
): LslNode {
  const frames: Frame[] = [];
  const info: Record<string, unknown> = {};
  const logs: string[] = [];
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  const context: NodeContext = {
    streamId,
    ...(streamName === undefined ? {} : { streamName }),
    nodeId,
    config,
    dataDir: '/nonexistent',
    access: { ...LOOPBACK_ONLY, lsl: { interfaces: [], sessionId: 'default', knownPeers: [], ...ports } },
    emit: (_port, frame) => {
      frames.push(frame);
      wake();
    },
    log: (line) => logs.push(line),
    fail: (error) => {
      throw error;
    },
    setInfo: (patch) => {
      Object.assign(info, patch);
      wake();
    },
    countDropped: () => undefined,
    trackProcessGroup: () => undefined,
    untrackProcessGroup: () => undefined,
  };
  const node = create(context);
  return {
    node,
    frames,
    info,
    logs,
    async until(check) {
      while (!check()) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    samples: () => frames.reduce((sum, f) => sum + f.data.length / f.channels.length, 0),
  };
}

export function lslInletNode(ports: LslPorts, config: Record<string, unknown>, nodeId = 'in'): LslNode {
  return harness(ports, '7a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d', nodeId, config, createLslInlet);
}

export function lslOutletNode(ports: LslPorts, name: string, config: Record<string, unknown> = {}): LslNode {
  return harness(ports, '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c', 'lsl', config, createLslOutlet, name);
}
