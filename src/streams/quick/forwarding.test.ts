/**
 * Forwarding without HTTP: pipes out to allow-listed hosts only, and ingest sockets feeding the
 * runtime, on a real stream manager (SQLite store, fake runtime) and a socket stand-in.
 */
import { EventEmitter } from 'node:events';
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { FakeRuntime } from '../../../test/support/fake-runtime.js';
import { HeadsetdError } from '../../core/errors.js';
import { type Db, openDatabase } from '../../platform/store/database.js';
import { StreamManager } from '../manager.js';
import { QUICK_NODES } from '../quick-stream.js';
import { StreamStore } from '../store.js';
import { QuickForwarding } from './forwarding.js';
import { QuickRegistry } from './registry.js';
import { QuickStreams } from './service.js';
import { scratchDir } from '../../../test/support/scratch.js';

let dataDir: string;
let db: Db;
let runtime: FakeRuntime;
let manager: StreamManager;
let registry: QuickRegistry;
let streams: QuickStreams;

beforeEach(() => {
  dataDir = scratchDir('headsetd-quick-piping');
  db = openDatabase(dataDir);
  runtime = new FakeRuntime();
  manager = new StreamManager(new StreamStore(db), runtime, { context: { executablesDirs: [] } });
  registry = new QuickRegistry(manager, runtime, undefined);
  streams = new QuickStreams(manager, registry);
});

afterEach(async () => {
  registry.close();
  await manager.close();
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const TARGET_ID = '0d9a7c1e-2b3f-4a5b-8c6d-7e8f9a0b1c2d';

function refusal(work: () => unknown): HeadsetdError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(HeadsetdError);
    return error as HeadsetdError;
  }
  throw new Error('not refused');
}

/** Enough of a `ws` socket for serveIngest: messages in, the close code and reason out. */
class FakeSocket extends EventEmitter {
  readonly readyState = 1;
  readonly bufferedAmount = 0;
  closed: { code: number; reason: string } | undefined;
  send(): void {}
  close(code: number, reason: string): void {
    this.closed = { code, reason };
    this.emit('close');
  }
  message(text: string, binary = false): void {
    this.emit('message', Buffer.from(text), binary);
  }
}

describe('QuickForwarding.start and stop', () => {
  test('a host off the allow-list is refused 403 naming the list; a loopback host pipes', async () => {
    const forwarding = new QuickForwarding(registry, manager, runtime);
    const { streamId } = await streams.start({ source: 'eeg', channels: ['O1'] });
    const error = refusal(() =>
      forwarding.start(streamId, { target: { host: 'example.com', port: 42069, streamId: TARGET_ID } }),
    );
    expect(error.code).toBe('forbidden_origin');
    expect(error.details).toMatchObject({ path: '/target/host', allowed: ['127.0.0.1', '::1', 'localhost'] });
    const answer = forwarding.start(streamId, { target: { host: '[::1]', port: 1, streamId: TARGET_ID } });
    expect(answer.pipe.target).toEqual({ host: '::1', port: 1, streamId: TARGET_ID });
    const ended = forwarding.stop(streamId);
    expect(ended.pipe.state).toBe('closed');
    expect(refusal(() => forwarding.stop(streamId)).code).toBe('forward_not_found');
  });

  test('a target stream id that is no UUID, and a stopped stream, are refused', async () => {
    const forwarding = new QuickForwarding(registry, manager, runtime, { allowedHosts: ['Headset-2.local'] });
    const { streamId } = await streams.start({ source: 'eeg', channels: ['O1'] });
    const notUuid = refusal(() =>
      forwarding.start(streamId, { target: { host: 'headset-2.local', port: 1, streamId: 'abc' } }),
    );
    expect(notUuid.details?.path).toBe('/target/streamId');
    await streams.stop(streamId);
    const stopped = refusal(() =>
      forwarding.start(streamId, { target: { host: 'headset-2.local', port: 1, streamId: TARGET_ID } }),
    );
    expect(stopped.code).toBe('invalid_state');
  });
});

describe('QuickForwarding ingest', () => {
  test('frames of an ingest socket go to the ingest node; a wrong one closes it 1008 naming the message', async () => {
    const forwarding = new QuickForwarding(registry, manager, runtime);
    const { streamId } = await streams.start({ source: 'ingest', sampleRate: 250, channels: ['Cz', 'Pz'] });
    forwarding.checkIngest(streamId, undefined);
    const target = forwarding.ingestTarget(streamId, undefined);
    expect(target.node.id).toBe(QUICK_NODES.source);
    const socket = new FakeSocket();
    forwarding.serveIngest(socket, target);
    const frame = { timestamp: 1_700_000_000_000, sampleRate: 250, channels: ['CZ', 'PZ'], data: [[1, 2]] };
    socket.message(JSON.stringify(frame));
    expect(runtime.fed).toHaveLength(1);
    expect(registry.resolve(streamId).session.ingestFrames).toBe(1);
    socket.message(JSON.stringify({ ...frame, sampleRate: 500 }));
    expect(socket.closed?.code).toBe(1008);
    expect(socket.closed?.reason).toMatch(/^message 2: /);
    expect(registry.resolve(streamId).session.ingestClients).toBe(0);
  });

  test('a stream without ingest node is not found; a stopped one is refused before the upgrade', async () => {
    const forwarding = new QuickForwarding(registry, manager, runtime);
    const eeg = await streams.start({ source: 'eeg', channels: ['O1'] });
    expect(
      refusal(() => {
        forwarding.checkIngest(eeg.streamId, undefined);
      }).code,
    ).toBe('node_not_found');
    const ingest = await streams.start({ source: 'ingest', channels: ['O1'] });
    expect(
      refusal(() => {
        forwarding.checkIngest(ingest.streamId, 'other');
      }).code,
    ).toBe('node_not_found');
    await streams.stop(ingest.streamId);
    expect(
      refusal(() => {
        forwarding.checkIngest(ingest.streamId, undefined);
      }).code,
    ).toBe('invalid_state');
  });
});
