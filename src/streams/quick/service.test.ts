/**
 * Starting and stopping quick streams without HTTP: a real stream manager (SQLite store, fake
 * runtime) and the registry following it, as the service wires them.
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { FakeRuntime } from '../../../test/support/fake-runtime.js';
import { HeadsetdError } from '../../core/errors.js';
import { type Db, openDatabase } from '../../platform/store/database.js';
import { StreamManager } from '../manager.js';
import { QUICK_NODES } from '../quick-stream.js';
import { StreamStore } from '../store.js';
import { QuickRegistry } from './registry.js';
import { QuickStreams } from './service.js';
import { scratchDir } from '../../../test/support/scratch.js';

let dataDir: string;
let db: Db;
let runtime: FakeRuntime;
let manager: StreamManager;
let registry: QuickRegistry;

beforeEach(() => {
  dataDir = scratchDir('headsetd-quick-service');
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

async function refusal(work: Promise<unknown>): Promise<HeadsetdError> {
  const error: unknown = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HeadsetdError);
  return error as HeadsetdError;
}

describe('QuickStreams.start', () => {
  test('makes the stream, starts it and answers once it runs, its run begun', async () => {
    const streams = new QuickStreams(manager, registry);
    const started = await streams.start({ source: 'eeg', sampleRate: 250, channels: ['O1', 'O2'] });
    expect(started.status).toBe('running');
    expect(started.config.channels).toEqual(['O1', 'O2']);
    expect(manager.get(started.streamId).state).toBe('running');
    expect(runtime.ops(started.streamId)).toContain('start');
    expect(streams.resolve(started.streamId).session.startTime).toBeTypeOf('number');
  });

  test('a stream that fails to start is removed again and refused with the reason', async () => {
    runtime.failStart.set(QUICK_NODES.source, 'the amplifier is off');
    const streams = new QuickStreams(manager, registry);
    const error = await refusal(streams.start({ source: 'eeg', channels: ['O1'] }));
    expect(error.code).toBe('device_unavailable');
    expect(error.message).toMatch(/the amplifier is off/);
    expect(manager.list()).toEqual([]);
    expect(registry.bufferUse().streams).toBe(0);
  });

  test('a start still under way when the wait ends is rolled back and refused, naming the state', async () => {
    const release = runtime.hold('start');
    // The rollback removes the stream, whose stop waits for the start: let the start end then.
    manager.onChange((change) => {
      if (change.kind === 'removed') release();
    });
    const streams = new QuickStreams(manager, registry, { transitionTimeoutMs: 50 });
    const error = await refusal(streams.start({ source: 'eeg', channels: ['O1'] }));
    expect(error.code).toBe('device_unavailable');
    expect(error.details?.reason).toMatch(/still starting after 0.05 s/);
    expect(manager.list()).toEqual([]);
  });

  test('channels the device does not acquire are refused before any stream is made', async () => {
    const streams = new QuickStreams(manager, registry, { acquiredChannels: () => ['O1'] });
    const error = await refusal(streams.start({ source: 'eeg', channels: ['O1', 'O2'] }));
    expect(error.code).toBe('channels_unavailable');
    expect(error.details?.path).toBe('/channels/1');
    expect(manager.list()).toEqual([]);
    expect(runtime.calls).toEqual([]);
  });

  test('an ingest quick stream does not ask the device', async () => {
    const streams = new QuickStreams(manager, registry, { acquiredChannels: () => [] });
    const started = await streams.start({ source: 'ingest', channels: ['O1'] });
    expect(started.status).toBe('running');
  });
});

describe('QuickStreams.stop and view', () => {
  test('stop waits for the transition, ends the run and answers its figures', async () => {
    const streams = new QuickStreams(manager, registry);
    const { streamId } = await streams.start({ source: 'eeg', channels: ['O1'] });
    const stopped = await streams.stop(streamId);
    expect(stopped).toMatchObject({ streamId, status: 'stopped', samples: 0 });
    expect(stopped.duration).toBeGreaterThanOrEqual(0);
    expect(streams.resolve(streamId).session.stopTime).toBeTypeOf('number');
  });

  test('view answers the runtime figures of a running quick stream; another stream is not found', async () => {
    const streams = new QuickStreams(manager, registry);
    const { streamId } = await streams.start({ source: 'eeg', channels: ['O1'] });
    const view = streams.view(streamId);
    expect(view.entry.definition.id).toBe(streamId);
    expect(view.live).toBe(true);
    expect((await refusal(Promise.resolve().then(() => streams.view(crypto.randomUUID())))).code).toBe(
      'stream_not_found',
    );
  });
});
