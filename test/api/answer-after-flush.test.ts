/**
 * The store commits without waiting for the disk (platform/store/durability.ts), so the API must: a
 * request that wrote is answered only once its commits are flushed, else an acknowledged edit
 * could be lost on a power cut. A GET is not held back (it does not wait for anything).
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, expect, test } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { closeDatabase, commitsPending, openDatabase } from '../../src/platform/store/database.js';
import { StreamManager } from '../../src/streams/manager.js';
import { StreamStore } from '../../src/streams/store.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { tempDataDir } from '../support/service.js';
import { eventually } from '../support/wait.js';

const db = openDatabase(tempDataDir());
const manager = new StreamManager(new StreamStore(db), new FakeRuntime(), {
  context: { executablesDirs: [] },
});
let release: (() => void) | undefined;
let held = 0;
const app = createApp({
  manager,
  logger: pino({ level: 'silent' }),
  version: 't',
  security: { token: undefined, allowedOrigins: [], allowedHosts: [], hostname: () => '', port: () => 0 },
  // The disk, held until the test lets it go.
  commitsPending: () => {
    const real = commitsPending(db);
    if (real === undefined) return undefined;
    held++;
    return new Promise<void>((resolve) => {
      release = () => {
        void real.then(resolve);
      };
    });
  },
});

afterAll(async () => {
  await (await app).close();
  await manager.close();
  await closeDatabase(db);
});

test('an acknowledged edit was answered only after its commit reached the disk', async () => {
  const a = await app;
  const id = randomUUID();
  let answered = false;
  const creating = a
    .inject({
      method: 'POST',
      url: '/stream/streams',
      payload: {
        id,
        nodes: [
          {
            id: 'g',
            executable: 'signal-generator',
            config: { sampleRate: 250, amplitudes: [1], frequencies: [10] },
          },
        ],
        pipes: [],
      },
    })
    .then((response) => {
      answered = true;
      return response;
    });
  await eventually(() => (held === 1 ? true : undefined), 5000, 'the answer waiting for the disk');
  // The stream is in the store, but the answer waits for the flush.
  expect(manager.list().some((e) => e.definition.id === id)).toBe(true);
  expect(held).toBe(1);
  expect(answered).toBe(false);
  release?.();
  const response = await creating;
  expect(response.statusCode, response.body).toBe(200);
  expect(commitsPending(db)).toBeUndefined();
  // A read is answered at once.
  const list = await a.inject({ method: 'GET', url: '/stream/streams' });
  expect(list.statusCode).toBe(200);
  expect(held).toBe(1);
});
