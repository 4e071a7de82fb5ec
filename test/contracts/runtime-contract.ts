/**
 * What every StreamRuntime must do, as the stream manager relies on it: one suite, run against the
 * real runtime (worker threads) and against the tests' fake, so that a control-plane test that
 * passes on the fake means what it says on the real thing (in the manner of Hono's shared router
 * tests).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { NodeDef, PipeDef, StreamDefinition } from '../../src/core/stream-model.js';
import { HeadsetdError } from '../../src/errors/catalog.js';
import { NodeFailureError, type StreamRuntime } from '../../src/runtime/port.js';
import { openDatabase } from '../../src/store/database.js';
import { StreamManager } from '../../src/streams/manager.js';
import { StreamStore } from '../../src/streams/store.js';
import { statusView } from '../../src/streams/views.js';
import { eventually } from '../support/wait.js';

export interface RuntimeUnderTest {
  runtime: StreamRuntime;
  close(): Promise<void>;
}

const generator: NodeDef = {
  id: 'gen',
  executable: 'signal-generator',
  config: { sampleRate: 100, amplitudes: [1], frequencies: [5] },
};
const logger: NodeDef = { id: 'log', executable: 'logger', config: {} };

function definition(nodes: NodeDef[], pipes: PipeDef[]): StreamDefinition {
  const now = new Date().toISOString();
  return { id: randomUUID(), meta: { created: now, updated: now }, nodes, pipes };
}

async function takenPort(): Promise<{ port: number; blocker: Server }> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const address = blocker.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, blocker };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

export function runtimeContract(name: string, make: () => RuntimeUnderTest): void {
  describe(`StreamRuntime contract: ${name}`, () => {
    let subject: RuntimeUnderTest;
    let runtime: StreamRuntime;
    const cleanups: (() => unknown)[] = [];

    beforeEach(() => {
      subject = make();
      runtime = subject.runtime;
    });
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      await subject.close();
    });

    test('start runs every node; stop releases the stream and its status', async () => {
      const stream = definition([generator, logger], [{ id: 'p', source: 'gen', destination: 'log' }]);
      await runtime.start(stream);
      const status = runtime.status(stream.id);
      expect(Object.keys(status?.nodes ?? {}).sort()).toEqual(['gen', 'log']);
      expect(status?.nodes.gen?.state).toBe('running');
      await runtime.stop(stream.id);
      expect(runtime.status(stream.id)).toBeUndefined();
      // Stopping what does not run is not an error: a stop is idempotent.
      await runtime.stop(stream.id);
    });

    test("a stopped stream's logs are kept until it is forgotten; a running stream's are never dropped", async () => {
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
    });

    test('a second start of a running stream is refused as invalid_state', async () => {
      const stream = definition([generator], []);
      await runtime.start(stream);
      const error = await rejection(runtime.start(stream));
      expect(error).toBeInstanceOf(HeadsetdError);
      expect((error as HeadsetdError).code).toBe('invalid_state');
      await runtime.stop(stream.id);
    });

    test('pause and resume change every node’s state', async () => {
      const stream = definition([generator, logger], [{ id: 'p', source: 'gen', destination: 'log' }]);
      await runtime.start(stream);
      await runtime.pause(stream.id);
      expect(runtime.status(stream.id)?.nodes.gen?.state).toBe('paused');
      await runtime.resume(stream.id);
      expect(runtime.status(stream.id)?.nodes.gen?.state).toBe('running');
      await runtime.stop(stream.id);
    });

    test('pause, resume, update and node signals of a stream that does not run are invalid_state', async () => {
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
    });

    test('update adds a node to a running stream', async () => {
      const stream = definition([generator], []);
      await runtime.start(stream);
      await runtime.update({
        ...stream,
        nodes: [generator, logger],
        pipes: [{ id: 'p', source: 'gen', destination: 'log' }],
      });
      expect(Object.keys(runtime.status(stream.id)?.nodes ?? {}).sort()).toEqual(['gen', 'log']);
      await runtime.stop(stream.id);
    });

    test('a websocket node whose port is taken fails the start with a typed failure naming the node and the port', async () => {
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
    });

    test('an update adding a websocket node on a taken port is refused and leaves the stream running as it was', async () => {
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
    });

    test('through the manager, that websocket node shows state error with a lastError naming the port', async () => {
      const { port, blocker } = await takenPort();
      cleanups.push(() => new Promise((resolve) => blocker.close(resolve)));
      const dataDir = mkdtempSync(path.join(tmpdir(), 'headsetd-contract-'));
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
    });
  });
}
