/**
 * The contract's cases on a stream's lifecycle: start, stop, pause, resume, update, node signals,
 * status, logs and forget, with the typed failure of a node that cannot start.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { expect } from 'vitest';
import { HeadsetdError } from '../../src/core/errors.js';
import { NodeFailureError } from '../../src/streams/runtime/stream-runtime.js';
import { openDatabase } from '../../src/platform/store/database.js';
import { StreamManager } from '../../src/streams/manager.js';
import { StreamStore } from '../../src/streams/store.js';
import { statusView } from '../../src/streams/views.js';
import { eventually } from '../support/wait.js';
import {
  definition,
  generator,
  logger,
  rejection,
  type RuntimeCase,
  takenPort,
} from './runtime-case-helpers.js';
import { scratchDir } from '../support/scratch.js';

export const LIFECYCLE_CASES: readonly RuntimeCase[] = [
  {
    title: 'start runs every node; stop releases the stream and its status',
    covers: ['start', 'stop', 'status'],
    async run({ runtime }) {
      const stream = definition([generator, logger], [{ id: 'p', source: 'gen', destination: 'log' }]);
      await runtime.start(stream);
      const status = runtime.status(stream.id);
      expect(Object.keys(status?.nodes ?? {}).sort()).toEqual(['gen', 'log']);
      expect(status?.nodes.gen?.state).toBe('running');
      const before = runtime.status(stream.id)?.nodes.log?.metrics.itemsProcessed ?? 0;
      // The stop answers the status after the nodes stopped: what they handled up to the stop
      // counts (a recorder's last frames), every node terminated.
      const last = await runtime.stop(stream.id);
      expect(Object.values(last?.nodes ?? {}).map((n) => n.state)).toEqual(['terminated', 'terminated']);
      expect(last?.nodes.log?.metrics.itemsProcessed).toBeGreaterThanOrEqual(before);
      expect(runtime.status(stream.id)).toBeUndefined();
      // Stopping what does not run is not an error: a stop is idempotent.
      expect(await runtime.stop(stream.id)).toBeUndefined();
    },
  },
  {
    title: "a stopped stream's logs are kept until it is forgotten; a running stream's are never dropped",
    covers: ['logs', 'forget'],
    async run({ runtime }) {
      const stream = definition([generator, logger], [{ id: 'p', source: 'gen', destination: 'log' }]);
      await runtime.start(stream);
      // The logger writes a line per frame; the lines reach the runtime with its status pushes.
      await eventually(() => runtime.logs(stream.id, 'log').length > 0, 10_000, 'a log line');
      runtime.forget(stream.id);
      expect(runtime.logs(stream.id, 'log').length).toBeGreaterThan(0);
      await runtime.stop(stream.id);
      expect(runtime.logs(stream.id, 'log').length).toBeGreaterThan(0);
      runtime.forget(stream.id);
      expect(runtime.logs(stream.id, 'log')).toEqual([]);
    },
  },
  {
    title: 'a second start of a running stream is refused as invalid_state',
    covers: ['start'],
    async run({ runtime }) {
      const stream = definition([generator], []);
      await runtime.start(stream);
      const error = await rejection(runtime.start(stream));
      expect(error).toBeInstanceOf(HeadsetdError);
      expect((error as HeadsetdError).code).toBe('invalid_state');
      await runtime.stop(stream.id);
    },
  },
  {
    title: 'pause and resume change every node’s state',
    covers: ['pause', 'resume'],
    async run({ runtime }) {
      const stream = definition([generator, logger], [{ id: 'p', source: 'gen', destination: 'log' }]);
      await runtime.start(stream);
      await runtime.pause(stream.id);
      expect(runtime.status(stream.id)?.nodes.gen?.state).toBe('paused');
      await runtime.resume(stream.id);
      expect(runtime.status(stream.id)?.nodes.gen?.state).toBe('running');
      await runtime.stop(stream.id);
    },
  },
  {
    title: 'pause, resume, update and node signals of a stream that does not run are invalid_state',
    covers: ['pause', 'resume', 'update', 'signalNode'],
    async run({ runtime }) {
      const stream = definition([generator], []);
      for (const call of [
        () => runtime.pause(stream.id),
        () => runtime.resume(stream.id),
        () => runtime.update(stream),
        () => runtime.signalNode(stream.id, 'gen', 'flush', {}),
      ]) {
        const error = await rejection(call());
        expect(error).toBeInstanceOf(HeadsetdError);
        expect((error as HeadsetdError).code).toBe('invalid_state');
      }
    },
  },
  {
    title: 'a node signal acts on that node alone; a custom signal reaches the node',
    covers: ['signalNode', 'status', 'logs'],
    async run({ runtime }) {
      const stream = definition(
        [generator, { id: 'pass', executable: 'test-pass', config: {} }],
        [{ id: 'p', source: 'gen', destination: 'pass' }],
      );
      await runtime.start(stream);
      await runtime.signalNode(stream.id, 'pass', 'pause', {});
      expect(runtime.status(stream.id)?.nodes.pass?.state).toBe('paused');
      expect(runtime.status(stream.id)?.nodes.gen?.state).toBe('running');
      await runtime.signalNode(stream.id, 'pass', 'resume', {});
      expect(runtime.status(stream.id)?.nodes.pass?.state).toBe('running');
      await runtime.signalNode(stream.id, 'pass', 'marker', { text: 'eyes closed' });
      await eventually(
        () => runtime.logs(stream.id, 'pass').some((l) => l.line === 'signal marker: {"text":"eyes closed"}'),
        10_000,
        'the signal in the node log',
      );
      await runtime.stop(stream.id);
    },
  },
  {
    title: 'update adds a node to a running stream',
    covers: ['update'],
    async run({ runtime }) {
      const stream = definition([generator], []);
      await runtime.start(stream);
      await runtime.update({
        ...stream,
        nodes: [generator, logger],
        pipes: [{ id: 'p', source: 'gen', destination: 'log' }],
      });
      expect(Object.keys(runtime.status(stream.id)?.nodes ?? {}).sort()).toEqual(['gen', 'log']);
      await runtime.stop(stream.id);
    },
  },
  {
    title:
      'a websocket node whose port is taken fails the start with a typed failure naming the node and the port',
    covers: ['start'],
    async run({ runtime, cleanups }) {
      const { port, blocker } = await takenPort();
      cleanups.push(() => new Promise((resolve) => blocker.close(resolve)));
      const stream = definition(
        [generator, { id: 'ws', executable: 'websocket', config: { port } }],
        [{ id: 'p', source: 'gen', destination: 'ws' }],
      );
      const error = await rejection(runtime.start(stream));
      expect(error).toBeInstanceOf(NodeFailureError);
      const failure = (error as NodeFailureError).failure;
      expect(failure.nodeId).toBe('ws');
      expect(failure.port).toBe(port);
      expect(failure.reason).toContain(String(port));
      expect(runtime.status(stream.id)).toBeUndefined();
    },
  },
  {
    title:
      'an update adding a websocket node on a taken port is refused and leaves the stream running as it was',
    covers: ['update'],
    async run({ runtime, cleanups }) {
      const { port, blocker } = await takenPort();
      cleanups.push(() => new Promise((resolve) => blocker.close(resolve)));
      const stream = definition([generator], []);
      await runtime.start(stream);
      const error = await rejection(
        runtime.update({
          ...stream,
          nodes: [generator, { id: 'ws', executable: 'websocket', config: { port } }],
          pipes: [{ id: 'p', source: 'gen', destination: 'ws' }],
        }),
      );
      expect(error).toBeInstanceOf(NodeFailureError);
      expect((error as NodeFailureError).failure).toMatchObject({ nodeId: 'ws', port });
      expect(runtime.status(stream.id)?.nodes.gen?.state).toBe('running');
      await runtime.stop(stream.id);
    },
  },
  {
    title: 'through the manager, that websocket node shows state error with a lastError naming the port',
    covers: ['start', 'status'],
    async run({ runtime, cleanups }) {
      const { port, blocker } = await takenPort();
      cleanups.push(() => new Promise((resolve) => blocker.close(resolve)));
      const dataDir = scratchDir('headsetd-contract');
      const db = openDatabase(dataDir);
      const manager = new StreamManager(new StreamStore(db), runtime, { context: { executablesDirs: [] } });
      cleanups.push(() => {
        rmSync(dataDir, { recursive: true, force: true });
      });
      cleanups.push(() => {
        db.close();
      });
      cleanups.push(() => manager.close());
      const { id } = manager.create({
        id: randomUUID(),
        nodes: [generator, { id: 'ws', executable: 'websocket', config: { port } }],
        pipes: [{ id: 'p', source: 'gen', destination: 'ws' }],
      });
      const failure = await manager.signal(id, 'start').outcome;
      expect(failure?.message).toContain(String(port));
      const entry = manager.get(id);
      const view = statusView(entry, manager.runtimeStatus(entry), manager.isLive(entry));
      expect(view.state).toBe('error');
      const ws = view.nodes.find((n) => n.id === 'ws');
      expect(ws?.state).toBe('error');
      expect(ws?.metrics.lastError).toContain(String(port));
      expect(view.nodes.find((n) => n.id === 'gen')?.state).not.toBe('running');
    },
  },
];
