/**
 * A start the device refuses is the start's own answer, whatever the runtime is doing: an
 * eeg-source naming channels the device does not acquire is refused on the main thread (409
 * channels_unavailable pointing at the channel) before the stream is handed to the runtime, so the
 * answer never depends on how soon a worker gets to the node (docs/api.md §Lifecycle). The
 * runtime here holds every start open: a refusal left to the node's start would be answered 200
 * after the signal's wait.
 */
import { rmSync } from 'node:fs';
import pino from 'pino';
import { afterEach, expect, test } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { subscriptionRefusal } from '../../src/device/sources/frame-source.js';
import { createSimulatedHeadset } from '../../src/device/simulated/index.js';
import { openDatabase } from '../../src/platform/store/database.js';
import { StreamManager } from '../../src/streams/manager.js';
import { StreamStore } from '../../src/streams/store.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { scratchDir } from '../support/scratch.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp() {
  const dataDir = scratchDir('headsetd-refusal');
  const headset = createSimulatedHeadset({ seed: 1 });
  const db = openDatabase(dataDir);
  const runtime = new FakeRuntime();
  const manager = new StreamManager(new StreamStore(db), runtime, {
    context: {
      executablesDirs: [],
      deviceChannels: () => headset.eeg.channels().map((c) => c.name),
      subscriptionRefusal: (channels) => subscriptionRefusal(headset, channels),
    },
  });
  const app = await createApp({
    manager,
    logger: pino({ level: 'silent' }),
    version: '0.0.0-test',
    signalWaitMs: 50,
    security: {
      token: undefined,
      allowedOrigins: [],
      allowedHosts: [],
      hostname: () => 'headset',
      port: () => 42069,
    },
  });
  await app.ready();
  cleanups.push(async () => {
    await app.close();
    await manager.close();
    await headset.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { app, manager, runtime, headset };
}

const ID = 'c0ffee00-0000-4000-8000-000000000019';

const stream = (executable: string, channels: string[]) => ({
  id: ID,
  nodes: [
    { id: 'eeg', executable, config: { channels } },
    { id: 'out', executable: 'tap', config: {} },
  ],
  pipes: [{ id: 'p', source: 'eeg', destination: 'out' }],
});

for (const executable of ['eeg-source', 'eeg_source']) {
  test(`${executable}: channels the device does not acquire are refused at start before the runtime is asked, pointing at the channel`, async () => {
    const { app, runtime, headset } = await setUp();
    await headset.eeg.configure({ channels: ['PZ', 'O1'] });
    // Every start the runtime is asked for stays under way.
    const release = runtime.hold('start');
    cleanups.push(release);
    const created = await app.inject({
      method: 'POST',
      url: '/stream/streams',
      payload: stream(executable, ['O1', 'fp1']),
    });
    expect(created.statusCode, created.body).toBe(200);

    const started = await app.inject({
      method: 'POST',
      url: `/stream/streams/${ID}/signal`,
      payload: { signal: 'start' },
    });
    expect(started.statusCode, started.body).toBe(409);
    const error = started.json().error;
    expect(error.code).toBe('channels_unavailable');
    expect(error.details.path).toBe('/nodes/0/config/channels/1');
    expect(error.details.channels).toEqual(['FP1']);
    expect(error.message).toContain('does not acquire Fp1');
    expect(error.message).toContain('PUT /system/sensors/eeg');
    // Refused before anything changed: the runtime was not asked, the stream is as it was.
    expect(runtime.calls.filter((c) => c.op === 'start')).toEqual([]);
    const status = await app.inject({ method: 'GET', url: `/stream/streams/${ID}/status` });
    expect(status.json().status.state).toBe('created');

    // Once the device acquires it, the same start is handed to the runtime.
    await headset.eeg.configure({ channels: ['PZ', 'O1', 'FP1'] });
    const again = await app.inject({
      method: 'POST',
      url: `/stream/streams/${ID}/signal`,
      payload: { signal: 'start' },
    });
    expect(again.statusCode, again.body).toBe(200);
    expect(runtime.calls.filter((c) => c.op === 'start')).toHaveLength(1);
  });
}
