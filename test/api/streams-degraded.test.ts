/**
 * A stream that runs with a node in `error` reads degraded, and says so on /system/events; a
 * stream that cannot start again when the service starts is logged at warn with its reason. The
 * service is assembled by startServer over a FakeRuntime. The same on the real runtime:
 * test/e2e/streams-lifecycle-runtime.test.ts.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../src/events/hub.js';
import { DEFAULTS } from '../../src/service/config.js';
import { type RunningServer, startServer } from '../../src/service/server.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { capturingLogger } from '../support/log-capture.js';
import { chainStream, OTHER_ID } from './helpers.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { scratchDir } from '../support/scratch.js';

const ID = OTHER_ID;
const NYQUIST = 'lowpass 200 Hz is at or above the Nyquist frequency 125 Hz (sample rate 250 Hz)';

let server: RunningServer | undefined;
const dataDir = scratchDir('headsetd-degraded');
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dataDir, { recursive: true, force: true });
});

async function serve(runtime: FakeRuntime, records: Record<string, unknown>[] = []): Promise<RunningServer> {
  server = await startServer({
    workerEntry: STREAM_HOST,
    settings: { ...DEFAULTS, port: 0, dataDir },
    logger: capturingLogger(records),
    runtime,
  });
  return server;
}

async function inject(s: RunningServer, method: 'GET' | 'POST', url: string, payload?: object) {
  const answer = await s.app.inject({ method, url, ...(payload === undefined ? {} : { payload }) });
  return { status: answer.statusCode, body: answer.json<Record<string, any>>() };
}

describe('a node left in error while the stream runs', () => {
  it('makes the status degraded with an error naming the node (it read running, error null) and raises stream_degraded', async () => {
    const runtime = new FakeRuntime();
    const s = await serve(runtime);
    const events: HubEvent[] = [];
    const unsubscribe = s.events.on((event) => events.push(event));
    expect((await inject(s, 'POST', '/stream/streams', chainStream(ID))).status).toBe(200);
    expect((await inject(s, 'POST', `/stream/streams/${ID}/signal`, { signal: 'start' })).status).toBe(200);
    const healthy = await inject(s, 'GET', `/stream/streams/${ID}/status`);
    expect(healthy.body.status).toMatchObject({ state: 'running', degraded: false, error: null });

    // The filter designs itself on its first frame, at a rate only the running stream knows.
    runtime.nodeStates.set('filt', { state: 'error', lastError: NYQUIST });
    runtime.emit({
      type: 'node_crashed',
      streamId: ID,
      nodeId: 'filt',
      message: NYQUIST,
      willRestart: false,
    });

    const status = (await inject(s, 'GET', `/stream/streams/${ID}/status`)).body.status;
    expect(status.state).toBe('running');
    expect(status.degraded).toBe(true);
    expect(status.error).toContain(`node filt is in error (${NYQUIST})`);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'system', eventType: 'stream_degraded', level: 'warning' }),
    );
    const degraded = events.find((e) => 'eventType' in e && e.eventType === 'stream_degraded');
    expect(degraded && 'message' in degraded ? degraded.message : '').toContain(
      `node filt is in error (${NYQUIST})`,
    );
    unsubscribe();

    // Once the node runs again, the stream is healthy again.
    runtime.nodeStates.clear();
    expect((await inject(s, 'GET', `/stream/streams/${ID}/status`)).body.status).toMatchObject({
      degraded: false,
      error: null,
    });
  });

  it('a node that crashes and is restarted does not make the stream degraded', async () => {
    const runtime = new FakeRuntime();
    const s = await serve(runtime);
    const events: HubEvent[] = [];
    const unsubscribe = s.events.on((event) => events.push(event));
    await inject(s, 'POST', '/stream/streams', chainStream(ID));
    await inject(s, 'POST', `/stream/streams/${ID}/signal`, { signal: 'start' });
    runtime.emit({
      type: 'node_crashed',
      streamId: ID,
      nodeId: 'filt',
      message: 'exit 3',
      willRestart: true,
    });
    expect((await inject(s, 'GET', `/stream/streams/${ID}/status`)).body.status.degraded).toBe(false);
    expect(events.map((e) => ('eventType' in e ? e.eventType : e.type))).not.toContain('stream_degraded');
    unsubscribe();
  });
});

describe('a node that holds its frames back while the stream runs', () => {
  it('a running stream never reads healthy while its source holds frames back: degraded with the reason, stream_degraded, then stream_recovered', async () => {
    const runtime = new FakeRuntime();
    const s = await serve(runtime);
    const events: HubEvent[] = [];
    const unsubscribe = s.events.on((event) => events.push(event));
    await inject(s, 'POST', '/stream/streams', chainStream(ID));
    await inject(s, 'POST', `/stream/streams/${ID}/signal`, { signal: 'start' });
    // Read once, so that a cached answer would be served if the change were not seen.
    expect((await inject(s, 'GET', `/stream/streams/${ID}/status`)).body.status.degraded).toBe(false);
    const why = 'the device no longer acquires CZ (its EEG configuration changed)';
    runtime.emit({ type: 'node_degraded', streamId: ID, nodeId: 'gen', message: why });

    const status = (await inject(s, 'GET', `/stream/streams/${ID}/status`)).body.status;
    expect(status).toMatchObject({ state: 'running', degraded: true });
    expect(status.error).toContain(`node gen holds its frames back: ${why}`);
    const degraded = events.find((e) => 'eventType' in e && e.eventType === 'stream_degraded');
    expect(degraded && 'message' in degraded ? degraded.message : '').toContain(why);

    runtime.emit({ type: 'node_recovered', streamId: ID, nodeId: 'gen', message: 'it delivers again' });
    expect((await inject(s, 'GET', `/stream/streams/${ID}/status`)).body.status).toMatchObject({
      degraded: false,
      error: null,
    });
    expect(events.map((e) => ('eventType' in e ? e.eventType : e.type))).toContain('stream_recovered');

    // A stop and a start begin afresh: what a node held in the last run is forgotten.
    runtime.emit({ type: 'node_degraded', streamId: ID, nodeId: 'gen', message: why });
    await inject(s, 'POST', `/stream/streams/${ID}/signal`, { signal: 'stop' });
    await inject(s, 'POST', `/stream/streams/${ID}/signal`, { signal: 'start' });
    expect((await inject(s, 'GET', `/stream/streams/${ID}/status`)).body.status.degraded).toBe(false);
    unsubscribe();
  });
});

describe('start-up', () => {
  it('logs a stream restored in error at warn level with its reason', async () => {
    const first = await serve(new FakeRuntime());
    await inject(first, 'POST', '/stream/streams', chainStream(ID));
    expect((await inject(first, 'POST', `/stream/streams/${ID}/signal`, { signal: 'start' })).status).toBe(
      200,
    );
    await first.close();

    const runtime = new FakeRuntime();
    runtime.failStart.set('filt', 'no such device');
    const records: Record<string, unknown>[] = [];
    const second = await serve(runtime, records);
    await second.manager.settle();
    expect(second.manager.get(ID).state).toBe('error');
    const warning = records.find((r) => String(r.msg).includes('restored in error'));
    expect(warning, JSON.stringify(records)).toMatchObject({
      level: 40,
      msg: `stream ${ID} restored in error: node filt: no such device`,
      streamId: ID,
      node: 'filt',
      reason: 'node filt: no such device',
    });
  });
});
