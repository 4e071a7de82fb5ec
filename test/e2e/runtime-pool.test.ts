/**
 * The data plane's worker pool: light streams share a worker and a busy worker makes streams
 * spread over new ones (or at once, by option); a node that never yields takes
 * down its own stream, and the other streams of its worker start again on another worker,
 * reported; a node that throws fails only its node, whoever shares its worker.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { RuntimeEvent } from '../../src/streams/runtime/stream-runtime.js';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { definition, FrameClient, pipe, TEST_NODES_MODULE } from '../runtime/helpers.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

const dataDir = scratchDir('headsetd-pool');
let runtime: WorkerRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

function newRuntime(
  workers: number,
  heartbeatTimeoutMs?: number,
  idleWorkerMs?: number,
  spreadAtUtilization?: number,
): { rt: WorkerRuntime; events: RuntimeEvent[] } {
  const rt = new WorkerRuntime({
    workerEntry: STREAM_HOST,
    dataDir,
    executablesDirs: [],
    extraExecutableModules: [TEST_NODES_MODULE],
    workers,
    ...(heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs }),
    ...(idleWorkerMs === undefined ? {} : { idleWorkerMs }),
    ...(spreadAtUtilization === undefined ? {} : { spreadAtUtilization }),
  });
  runtime = rt;
  const events: RuntimeEvent[] = [];
  rt.onEvent((e) => events.push(e));
  return { rt, events };
}

const generator = {
  id: 'gen',
  executable: 'signal-generator',
  config: { sampleRate: 250, amplitudes: [1], frequencies: [5] },
};
const logger = { id: 'log', executable: 'logger' };
const websocket = { id: 'ws', executable: 'websocket', config: { port: 0 } };

function portOf(rt: WorkerRuntime, streamId: string): number {
  return rt.status(streamId)!.nodes.ws!.info!.port as number;
}

describe('worker pool', () => {
  test('light streams share one worker', async () => {
    // A threshold no worker reaches: whatever a busy machine makes a light worker read while it
    // boots or starts a stream, the streams stay together (the busy case is the next test's).
    const { rt } = newRuntime(2, 1000, undefined, 1.01);
    for (const stream of [1, 2, 3].map(() => definition([generator, logger], [pipe('p', 'gen', 'log')]))) {
      await rt.start(stream);
    }
    expect(rt.workerLoads()).toEqual([3]);
  });

  test('a busy worker makes the next stream go to a new one', async () => {
    // The threshold sits far below the busy node's 90 % (which a busy machine only raises).
    const { rt } = newRuntime(2, 1000, undefined, 0.75);
    await rt.start(definition([{ id: 'busy', executable: 'test-busy' }], []));
    expect(rt.workerLoads()).toEqual([1]);
    // The watchdog measures each worker's busy share every third of the heartbeat timeout (333 ms here).
    await eventually(() => (rt.workerUtilizations()[0] ?? 0) > 0.75, 10_000, 'the worker to read busy');
    const next = definition([generator, logger], [pipe('p', 'gen', 'log')]);
    await rt.start(next);
    expect(rt.workerLoads()).toEqual([1, 1]);
    expect(rt.status(next.id)?.nodes.gen?.state).toBe('running');
  });

  test('with spreadAtUtilization 0 streams spread over the workers, and a stopped stream frees its place', async () => {
    const { rt } = newRuntime(2, undefined, undefined, 0);
    const streams = [1, 2, 3, 4].map(() => definition([generator, logger], [pipe('p', 'gen', 'log')]));
    for (const stream of streams) await rt.start(stream);
    expect(rt.workerLoads().sort()).toEqual([2, 2]);
    for (const stream of streams) expect(rt.status(stream.id)?.nodes.gen?.state).toBe('running');
    await rt.stop(streams[0]!.id);
    await rt.stop(streams[1]!.id);
    expect(rt.workerLoads().reduce((a, b) => a + b, 0)).toBe(2);
  });

  test('no worker runs before the first stream, and a worker left without streams ends after a while', async () => {
    const { rt } = newRuntime(2, undefined, 300);
    expect(rt.workerLoads()).toEqual([]);
    const stream = definition([generator, logger], [pipe('p', 'gen', 'log')]);
    await rt.start(stream);
    expect(rt.workerLoads()).toEqual([1]);
    await rt.stop(stream.id);
    await eventually(() => rt.workerLoads().length === 0, 10_000, 'the idle worker to end');
    // A later start boots a worker again.
    await rt.start(stream);
    expect(rt.status(stream.id)?.nodes.gen?.state).toBe('running');
  });

  test('a stream that never yields fails alone; the other stream of its worker starts again on a new one, reported', async () => {
    const { rt, events } = newRuntime(1, 1500);
    const healthy = definition([generator, websocket], [pipe('p1', 'gen', 'ws')]);
    const doomed = definition(
      [generator, { id: 'spin', executable: 'test-loop' }],
      [pipe('p1', 'gen', 'spin')],
    );
    await rt.start(healthy);
    await rt.start(doomed);
    expect(rt.workerLoads()).toEqual([2]);

    const failed = await eventually(
      () => events.find((e) => e.type === 'stream_failed' && e.streamId === doomed.id),
      15_000,
      'stream_failed of the looping stream',
    );
    expect(failed.message).toContain('node spin');
    const restarted = await eventually(
      () => events.find((e) => e.type === 'stream_restarted' && e.streamId === healthy.id),
      15_000,
      'stream_restarted of the healthy stream',
    );
    expect(restarted.message).toContain(`node spin of stream ${doomed.id}`);
    expect(events.some((e) => e.type === 'stream_failed' && e.streamId === healthy.id)).toBe(false);

    // It runs again, on a new worker, and says why in its nodes' lastError and logs.
    expect(rt.status(doomed.id)).toBeUndefined();
    const status = rt.status(healthy.id)!;
    expect(status.nodes.gen!.state).toBe('running');
    expect(status.nodes.ws!.metrics.lastError).toContain('restarted on another worker');
    expect(rt.logs(healthy.id, 'gen').some((l) => l.line.includes('restarted on another worker'))).toBe(true);
    expect(rt.workerLoads()).toEqual([1]);
    const client = await FrameClient.connect(portOf(rt, healthy.id));
    await eventually(() => client.frames.length > 3, 10_000, 'frames from the restarted stream');
    client.close();
  }, 40_000);

  test('a node that throws fails only its node, though another stream shares its worker', async () => {
    const { rt, events } = newRuntime(1);
    const faulty = definition(
      [generator, { id: 'bad', executable: 'test-throw', config: { restart: 'no' } }],
      [pipe('p1', 'gen', 'bad')],
    );
    const neighbour = definition([generator, websocket], [pipe('p1', 'gen', 'ws')]);
    await rt.start(neighbour);
    await rt.start(faulty);
    expect(rt.workerLoads()).toEqual([2]);
    const client = await FrameClient.connect(portOf(rt, neighbour.id));
    await eventually(() => rt.status(faulty.id)?.nodes.bad?.state === 'error', 10_000, 'the node in error');
    const before = client.frames.length;
    await eventually(() => client.frames.length > before + 5, 10_000, 'the neighbour still streaming');
    client.close();
    expect(rt.status(faulty.id)?.nodes.gen?.state).toBe('running');
    expect(events.filter((e) => e.type === 'stream_failed')).toEqual([]);
    expect(
      events.some((e) => e.type === 'node_crashed' && e.streamId === faulty.id && e.nodeId === 'bad'),
    ).toBe(true);
  });
});
