/**
 * StreamManager.onChange: every stream added, every change of state (wherever the manager or its
 * transitions make it) and every removal is announced once, in order, to every listener.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterEach, expect, test } from 'vitest';
import { FakeRuntime } from '../../test/support/fake-runtime.js';
import { openDatabase } from '../platform/store/database.js';
import type { StreamChange } from './entry.js';
import { StreamManager } from './manager.js';
import { StreamStore } from './store.js';
import { scratchDir } from '../../test/support/scratch.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setUp(dataDir = scratchDir('headsetd-changes')) {
  const db = openDatabase(dataDir);
  const runtime = new FakeRuntime();
  const manager = new StreamManager(new StreamStore(db), runtime, { context: { executablesDirs: [] } });
  cleanups.push(async () => {
    await manager.close();
    db.close();
  });
  return { manager, runtime, dataDir };
}

const generator = (id: string) => ({
  id,
  nodes: [
    {
      id: 'g',
      executable: 'signal-generator',
      config: { sampleRate: 10, amplitudes: [1], frequencies: [1] },
    },
  ],
  pipes: [],
});

const describeChange = (c: StreamChange) =>
  c.kind === 'state' ? `${c.previous}→${c.entry.state}` : `${c.kind}:${c.entry.state}`;

test('created, started, paused, resumed, stopped and deleted: each change announced once, in order', async () => {
  const { manager } = setUp();
  const seen: string[] = [];
  const unsubscribe = manager.onChange((c) => seen.push(describeChange(c)));
  const id = manager.create(generator(randomUUID())).id;
  await manager.signal(id, 'start').outcome;
  await manager.signal(id, 'pause').outcome;
  await manager.signal(id, 'resume').outcome;
  await manager.signal(id, 'stop').outcome;
  await manager.remove(id);
  expect(seen).toEqual([
    'added:created',
    'created→starting',
    'starting→running',
    'running→pausing',
    'pausing→paused',
    'paused→running',
    'running→stopping',
    'stopping→stopped',
    'removed:stopped',
  ]);
  unsubscribe();
  manager.create(generator(randomUUID()));
  expect(seen).toHaveLength(9);
});

test('a node that fails to start is announced as starting→error', async () => {
  const { manager, runtime } = setUp();
  runtime.failStart.set('g', 'no device');
  const seen: string[] = [];
  manager.onChange((c) => seen.push(describeChange(c)));
  const id = manager.create(generator(randomUUID())).id;
  await manager.signal(id, 'start').outcome;
  expect(seen).toEqual(['added:created', 'created→starting', 'starting→error']);
});

test('restored streams are announced as added, and a listener that throws does not stop the others', async () => {
  const first = setUp();
  const id = first.manager.create(generator(randomUUID())).id;
  await first.manager.close();
  const { manager } = setUp(first.dataDir);
  cleanups.push(() => {
    rmSync(first.dataDir, { recursive: true, force: true });
  });
  const seen: string[] = [];
  manager.onChange(() => {
    throw new Error('a broken listener');
  });
  manager.onChange((c) => seen.push(`${describeChange(c)}:${c.entry.definition.id}`));
  manager.restore();
  expect(seen).toEqual([`added:created:${id}`]);
});

test('a deleted stream is forgotten by the runtime once stopped (its logs go with it)', async () => {
  const { manager, runtime } = setUp();
  const running = manager.create(generator(randomUUID())).id;
  const stopped = manager.create(generator(randomUUID())).id;
  await manager.signal(running, 'start').outcome;
  await manager.signal(stopped, 'start').outcome;
  await manager.signal(stopped, 'stop').outcome;
  expect(runtime.forgotten.size).toBe(0);
  await manager.remove(running);
  await manager.remove(stopped);
  expect([...runtime.forgotten].sort()).toEqual([running, stopped].sort());
  expect(runtime.running.size).toBe(0);
});
