/**
 * The quick-stream registry without HTTP: a real stream manager (SQLite store, fake runtime) and
 * the registry following it through the manager's change announcements, as the routes use it.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { FakeRuntime } from '../../../test/support/fake-runtime.js';
import { openDatabase, type Db } from '../../platform/store/database.js';
import { StreamManager } from '../manager.js';
import { parseQuickStart, QUICK_NODES, quickStreamDocument } from '../quick-stream.js';
import { StreamStore } from '../store.js';
import { QuickRegistry } from './registry.js';
import { scratchDir } from '../../../test/support/scratch.js';

let dataDir: string;
let db: Db;
let runtime: FakeRuntime;
let manager: StreamManager;
let registry: QuickRegistry;

function frame(rows: number) {
  return Object.freeze({
    seq: 0,
    timestamp: Date.now(),
    sampleRate: 250,
    channels: ['O1', 'O2'],
    data: new Float32Array(rows * 2),
  });
}

beforeEach(() => {
  dataDir = scratchDir('headsetd-quick');
  db = openDatabase(dataDir);
  runtime = new FakeRuntime();
  manager = new StreamManager(new StreamStore(db), runtime, { context: { executablesDirs: [] } });
  registry = new QuickRegistry(manager, runtime, undefined);
});

afterEach(async () => {
  registry.close();
  await manager.close();
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function createQuick(): string {
  const config = parseQuickStart({ source: 'eeg', sampleRate: 250, channels: ['O1', 'O2'] });
  return manager.create(quickStreamDocument(config)).id;
}

describe('QuickRegistry', () => {
  test('a quick stream gets its session when created; any other stream gets none', () => {
    const id = createQuick();
    const { session } = registry.resolve(id);
    expect(session.streamId).toBe(id);
    expect(session.startTime).toBeUndefined();
    const plain = manager.create({
      id: randomUUID(),
      nodes: [
        {
          id: 'g',
          executable: 'signal-generator',
          config: { sampleRate: 10, amplitudes: [1], frequencies: [1] },
        },
      ],
      pipes: [],
    }).id;
    expect(() => registry.resolve(plain)).toThrow(/is not a quick EEG stream/);
  });

  test('a start and a stop made through the manager begin and end the run as they happen', async () => {
    const id = createQuick();
    const { session } = registry.resolve(id);
    await manager.signal(id, 'start').outcome;
    expect(session.startTime).toBeTypeOf('number');
    expect(session.stopTime).toBeUndefined();
    runtime.emitTap(id, QUICK_NODES.tap, frame(25));
    runtime.emitTap(id, QUICK_NODES.tap, frame(25));
    expect(session.samples).toBe(50);
    expect(session.ring.size).toBe(50);

    await manager.signal(id, 'stop').outcome;
    expect(session.stopTime).toBeTypeOf('number');
    // A frame still in flight after the run ended is not counted.
    runtime.emitTap(id, QUICK_NODES.tap, frame(25));
    expect(session.samples).toBe(50);
  });

  test('a deleted stream’s session is disposed: its clients are closed and it is forgotten', async () => {
    const id = createQuick();
    const { session } = registry.resolve(id);
    await manager.signal(id, 'start').outcome;
    const closed: { code: number | undefined; reason: string | undefined }[] = [];
    session.addClient({
      readyState: 1,
      bufferedAmount: 0,
      send: () => undefined,
      close: (code, reason) => {
        closed.push({ code, reason });
      },
      on: () => undefined,
    });
    await manager.remove(id);
    expect(closed).toHaveLength(1);
    expect(closed[0]?.reason).toMatch(/deleted/);
    expect(() => registry.resolve(id)).toThrow(/No stream has the id/);
  });

  test('a quick stream stored with upper-case channels (FP1, CZ) answers them in the 10-20 form', () => {
    const config = parseQuickStart({ source: 'eeg', sampleRate: 250, channels: ['O1'] });
    const id = manager.create(quickStreamDocument({ ...config, channels: ['FP1', 'CZ'] })).id;
    expect(registry.resolve(id).session.config.channels).toEqual(['Fp1', 'Cz']);
  });

  test('quick streams already in the manager (restored after a restart) are found at construction', async () => {
    const id = createQuick();
    await manager.signal(id, 'start').outcome;
    const second = new QuickRegistry(manager, runtime, undefined);
    try {
      const { session } = second.resolve(id);
      expect(session.startTime).toBeTypeOf('number');
    } finally {
      second.close();
    }
  });
});
