/** Builds the control plane (store, manager, app) on a temporary data dir with a FakeRuntime, for `inject` tests. */
import { HEADSET_CHANNELS } from '../../src/streams/quick-stream.js';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { createApp } from '../../src/api/app.js';
import { type Db, openDatabase } from '../../src/platform/store/database.js';
import { StreamManager } from '../../src/streams/manager.js';
import { StreamStore } from '../../src/streams/store.js';
import { FakeRuntime } from './fake-runtime.js';
import { scratchDir } from './scratch.js';

export interface ControlPlane {
  app: FastifyInstance;
  manager: StreamManager;
  runtime: FakeRuntime;
  dataDir: string;
  executablesDir: string;
  /** The store's database, to make it fail (a full store) in tests. */
  db: Db;
  close(options?: { keepData?: boolean }): Promise<void>;
}

export async function controlPlane(
  options: {
    dataDir?: string;
    signalWaitMs?: number;
    /** Where a transition that fails after its answer is announced (the service's event hub). */
    onLateFailure?: (streamId: string, message: string) => void;
  } = {},
): Promise<ControlPlane> {
  const dataDir = options.dataDir ?? scratchDir('headsetd-test');
  const executablesDir = path.join(dataDir, 'executables');
  const db = openDatabase(dataDir);
  const runtime = new FakeRuntime();
  const manager = new StreamManager(new StreamStore(db), runtime, {
    // The headset's channels, as the service on it gives them.
    context: { executablesDirs: [executablesDir], deviceChannels: () => HEADSET_CHANNELS },
  });
  manager.restore();
  const app = await createApp({
    manager,
    logger: pino({ level: 'silent' }),
    version: '0.0.0-test',
    // Transitional states held open by the fake's gates are answered after this, not after 1 s.
    signalWaitMs: options.signalWaitMs ?? 100,
    ...(options.onLateFailure === undefined ? {} : { onLateFailure: options.onLateFailure }),
    security: {
      token: undefined,
      allowedOrigins: [],
      allowedHosts: [],
      hostname: () => 'headset',
      port: () => 42069,
    },
  });
  await app.ready();
  return {
    app,
    manager,
    runtime,
    dataDir,
    executablesDir,
    db,
    async close(closeOptions = {}) {
      await app.close();
      await manager.close();
      db.close();
      if (closeOptions.keepData !== true) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const STREAM_ID = '6f1c2f0e-8a4b-4c1d-9e2f-3a4b5c6d7e8f';

/** The reference example: SignalGenerator → WebSocket. */
export function referenceStream(id = STREAM_ID) {
  return {
    id,
    meta: { name: 'Sine to WebSocket', description: 'reference example', tags: ['demo'], version: 1 },
    nodes: [
      {
        id: 'a1b2c3d4-0000-4000-8000-000000000001',
        type: 'EXECUTABLE_PRODUCER',
        meta: { type: 'SOURCE' },
        executable: 'node /usr/share/engines/worker-scripts/SignalGenerator.js',
        config: { sampleRate: 250, amplitudes: [1, 0.5], frequencies: [10, 20], channels: 4 },
      },
      {
        id: 'a1b2c3d4-0000-4000-8000-000000000002',
        type: 'EXECUTABLE_CONSUMER',
        meta: { type: 'OUTPUT' },
        executable: 'node /usr/share/engines/worker-scripts/WebSocket.js',
        config: { port: 0 },
      },
    ],
    pipes: [
      {
        id: 'a1b2c3d4-0000-4000-8000-0000000000ff',
        source: 'a1b2c3d4-0000-4000-8000-000000000001',
        destination: 'a1b2c3d4-0000-4000-8000-000000000002',
      },
    ],
  };
}
