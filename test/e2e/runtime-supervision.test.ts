/**
 * Failure isolation through real worker threads: a node that throws is restarted per its policy
 * while the rest of its stream runs on untouched; a node that never yields takes down only its own
 * stream's worker, reported as `stream_failed`.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import type { RuntimeEvent, RuntimeStreamStatus } from '../../src/streams/runtime/stream-runtime.js';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import {
  definition,
  FrameClient,
  pacingProblems,
  pipe,
  seqGaps,
  TEST_NODES_MODULE,
} from '../runtime/helpers.js';
import { eventually } from '../support/wait.js';
import { activeRounds, ROUND_MS } from '../../src/core/shared-rounds.js';
import { scratchDir } from '../support/scratch.js';

/** True while `pid` exists and is not a zombie. */
function processRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

const dataDir = scratchDir('headsetd-runtime');
let runtime: WorkerRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

function newRuntime(heartbeatTimeoutMs?: number): {
  rt: WorkerRuntime;
  events: RuntimeEvent[];
  atFailure: Map<string, RuntimeStreamStatus | undefined>;
  /** The crashed node's state in `status()` as each `node_crashed` was heard. */
  stateAtCrash: string[];
} {
  const rt = new WorkerRuntime({
    workerEntry: STREAM_HOST,
    dataDir,
    executablesDirs: [],
    extraExecutableModules: [TEST_NODES_MODULE],
    // Two streams, two workers: what happens across workers is tested here (a hang within a
    // shared worker is in runtime-pool.test.ts).
    workers: 2,
    spreadAtUtilization: 0,
    ...(heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs }),
  });
  runtime = rt;
  const events: RuntimeEvent[] = [];
  const atFailure = new Map<string, RuntimeStreamStatus | undefined>();
  const stateAtCrash: string[] = [];
  rt.onEvent((e) => {
    events.push(e);
    if (e.type === 'stream_failed') atFailure.set(e.streamId, rt.status(e.streamId));
    if (e.type === 'node_crashed')
      stateAtCrash.push(`${e.nodeId}:${rt.status(e.streamId)?.nodes[e.nodeId]?.state ?? 'absent'}`);
  });
  return { rt, events, atFailure, stateAtCrash };
}

const generator = {
  id: 'gen',
  executable: 'signal-generator',
  config: { sampleRate: 250, amplitudes: [1], frequencies: [5] },
};
const websocket = { id: 'ws', executable: 'websocket', config: { port: 0 } };

function portOf(rt: WorkerRuntime, streamId: string): number {
  return rt.status(streamId)!.nodes.ws!.info!.port as number;
}

describe('supervision', () => {
  test('a node that throws is restarted with backoff until its crash-loop limit; the others keep running', async () => {
    const { rt, events, stateAtCrash } = newRuntime();
    const stream = definition(
      [
        generator,
        websocket,
        { id: 'bad', executable: 'test-throw' },
        { id: 'once', executable: 'test-throw', config: { restart: 'no' } },
      ],
      [pipe('p1', 'gen', 'ws'), pipe('p2', 'gen', 'bad'), pipe('p3', 'gen', 'once')],
    );
    await rt.start(stream);
    const client = await FrameClient.connect(portOf(rt, stream.id));
    const crashesOf = (id: string) => events.filter((e) => e.type === 'node_crashed' && e.nodeId === id);

    // 5 failures: restarts after 250, 500, 1000 and 2000 ms, then the node stays in error.
    await eventually(() => rt.status(stream.id)?.nodes.bad?.state === 'error', 15_000, 'bad in error');
    // The status and the events come on their own ways from the worker: the last crash's event may
    // follow the state it left.
    await eventually(
      () => crashesOf('bad').length >= 5 && crashesOf('once').length >= 1,
      15_000,
      'the crash events',
    );
    const bad = rt.status(stream.id)!.nodes.bad!;
    expect(bad.metrics.restarts).toBe(4);
    expect(bad.metrics.errorCount).toBe(5);
    expect(bad.metrics.lastError).toContain('test-throw: deliberate failure');
    expect(crashesOf('bad').map((e) => e.type === 'node_crashed' && e.willRestart)).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);

    // restart: 'no' → one crash, no restart.
    const once = rt.status(stream.id)!.nodes.once!;
    expect(once.state).toBe('error');
    expect(once.metrics.restarts).toBe(0);
    expect(crashesOf('once').map((e) => e.type === 'node_crashed' && e.willRestart)).toEqual([false]);
    // Whoever hears a crash and asks the status then reads it: waiting for its restart, or in
    // error when it is not restarted (/system/events' node_crashed, then GET status).
    const initialized = 'bad:initialized';
    expect(stateAtCrash.filter((s) => s.startsWith('bad:'))).toEqual([
      initialized,
      initialized,
      initialized,
      initialized,
      'bad:error',
    ]);
    expect(stateAtCrash.filter((s) => s.startsWith('once:'))).toEqual(['once:error']);

    // The rest of the stream never noticed.
    const count = client.frames.length;
    await eventually(() => client.frames.length > count + 20, 5000, 'frames after the crashes');
    client.close();
    expect(seqGaps(client.seqs())).toEqual([]);
    const status = rt.status(stream.id)!;
    expect(status.nodes.gen!.state).toBe('running');
    expect(status.nodes.gen!.metrics.restarts).toBe(0);
    expect(status.nodes.ws!.metrics.errorCount).toBe(0);
    expect(events.some((e) => e.type === 'stream_failed')).toBe(false);
    expect(rt.logs(stream.id, 'bad').some((l) => l.line.includes('crash loop'))).toBe(true);

    // A manual restart gives the node a fresh start.
    await rt.signalNode(stream.id, 'bad', 'restart', {});
    expect(['running', 'initialized', 'error']).toContain(rt.status(stream.id)!.nodes.bad!.state);
  }, 30_000);

  test('a node that loops forever takes down only its own stream, reported as stream_failed', async () => {
    const { rt, events, atFailure } = newRuntime(1500);
    const healthy = definition([generator, websocket], [pipe('p1', 'gen', 'ws')]);
    const doomed = definition(
      [
        generator,
        { id: 'spin', executable: 'test-loop' },
        { id: 'log', executable: 'logger' },
        { id: 'parent', executable: 'test-spawn-loop' },
      ],
      [pipe('p1', 'gen', 'spin'), pipe('p2', 'gen', 'log')],
    );
    await rt.start(healthy);
    const client = await FrameClient.connect(portOf(rt, healthy.id));
    await rt.start(doomed);
    const childLine = rt.logs(doomed.id, 'parent').find((l) => l.line.startsWith('child pid '));
    const childPid = Number(childLine?.line.slice('child pid '.length));
    expect(processRunning(childPid)).toBe(true);

    const failed = await eventually(
      () => events.find((e) => e.type === 'stream_failed' && e.streamId === doomed.id),
      10_000,
      'stream_failed',
    );
    expect(failed.message).toContain('node spin');
    expect(failed.message).toContain('terminated');
    // Listeners of stream_failed see the last status; afterwards the stream is simply not running.
    const postMortem = atFailure.get(doomed.id)!;
    expect(rt.status(doomed.id)).toBeUndefined();
    expect(postMortem.nodes.spin!.state).toBe('error');
    expect(postMortem.nodes.spin!.metrics.lastError).toContain('stopped responding');
    expect(postMortem.nodes.gen!.state).toBe('terminated');
    await expect(rt.pause(doomed.id)).rejects.toMatchObject({ code: 'invalid_state' });
    // The hung worker could not stop its node's child: the main thread killed its process group.
    await eventually(() => !processRunning(childPid), 3000, 'the child process gone');

    // The other stream runs on. A frame its reader misses is one it counted: skipped for a lagging
    // client (the websocket node's bound) or by the pipe's policy, which the core the hung worker
    // kept busy can bring about on a busy machine; none is lost silently.
    const count = client.frames.length;
    await eventually(() => client.frames.length > count + 20, 5000, 'frames after the failure');
    client.close();
    const seqs = client.seqs();
    const missing = seqs.slice(1).reduce((n, seq, i) => n + seq - (seqs[i] as number) - 1, 0);
    const counted = () => {
      const status = rt.status(healthy.id)!;
      return status.nodes.ws!.metrics.framesDropped + (status.pipes.p1?.framesDropped ?? 0);
    };
    await eventually(() => counted() >= missing || undefined, 5000, `the ${missing} missing frames counted`);
    // In order, none twice.
    expect(seqs.filter((seq, i) => i > 0 && seq <= (seqs[i - 1] as number))).toEqual([]);
    expect(rt.status(healthy.id)!.nodes.gen!.state).toBe('running');

    await rt.stop(doomed.id);
    expect(rt.status(doomed.id)).toBeUndefined();
  }, 30_000);

  test("with the default timeout the watchdog is a job of the thread's one round, and still tells a node that never yields", async () => {
    const periodsBefore = new Set(activeRounds().keys());
    const jobsBefore = activeRounds().get(ROUND_MS) ?? 0;
    const { rt, events, atFailure } = newRuntime();
    const doomed = definition(
      [generator, { id: 'spin', executable: 'test-loop' }],
      [pipe('p1', 'gen', 'spin')],
    );
    await rt.start(doomed);
    // The worker's watchdog joined the round the device's housekeeping runs in (core/shared-rounds.ts),
    // and started no timer of a period of its own: supervising adds no wake-up of the main thread.
    expect(rt.workerLoads()).toEqual([1]);
    expect(activeRounds().get(ROUND_MS)).toBe(jobsBefore + 1);
    expect([...activeRounds().keys()].filter((p) => !periodsBefore.has(p) && p !== ROUND_MS)).toEqual([]);

    const failed = await eventually(
      () => events.find((e) => e.type === 'stream_failed' && e.streamId === doomed.id),
      20_000,
      'stream_failed',
    );
    expect(failed.message).toContain('node spin');
    expect(failed.message).toContain('terminated');
    expect(atFailure.get(doomed.id)!.nodes.spin!.metrics.lastError).toContain('stopped responding');
    // The dead worker's watchdog left the round.
    expect(activeRounds().get(ROUND_MS) ?? 0).toBe(jobsBefore);
  }, 30_000);

  test('a main thread too busy to read messages never mistakes a healthy worker for a hung one', async () => {
    const { rt, events } = newRuntime(500);
    const stream = definition([generator, { id: 'log', executable: 'logger' }], [pipe('p1', 'gen', 'log')]);
    await rt.start(stream);
    // Block this thread well past the heartbeat timeout; the worker keeps beating meanwhile.
    const end = Date.now() + 1250;
    while (Date.now() < end) {
      // busy
    }
    // The watchdog's overdue check runs in the first timers phase after the block, before the
    // messages the worker sent meanwhile are read: once the logger's lines of after the block have
    // come in (twice, so that the check has run again since), it has had its chance to misfire.
    const newLine = async (what: string) => {
      const seen = rt.logs(stream.id, 'log').at(-1);
      await eventually(() => rt.logs(stream.id, 'log').at(-1) !== seen, 5000, what);
    };
    await newLine('log lines sent during the block');
    await newLine('log lines after the block');
    expect(events.filter((e) => e.type === 'stream_failed')).toEqual([]);
    expect(rt.status(stream.id)!.nodes.gen!.state).toBe('running');
  }, 30_000);

  test('an exception escaping every handler ends only its stream, reported with its message', async () => {
    const { rt, events, atFailure } = newRuntime();
    const stream = definition([{ id: 'bomb', executable: 'test-timer-throw' }], []);
    await rt.start(stream);
    const failed = await eventually(
      () => events.find((e) => e.type === 'stream_failed' && e.streamId === stream.id),
      10_000,
      'stream_failed',
    );
    expect(failed.message).toContain('test-timer-throw: escaped every handler');
    expect(atFailure.get(stream.id)!.nodes.bomb!.state).toBe('error');
    expect(rt.logs(stream.id, 'bomb').at(-1)?.line).toContain('escaped every handler');
  });

  test('a node flooding a slow consumer stays within its pipe bounds and starves no other stream', async () => {
    const { rt } = newRuntime();
    const healthy = definition([generator, websocket], [pipe('p1', 'gen', 'ws')]);
    // Each burst of 100 frames is delivered while the drain's budget lasts (1 ms a frame); the
    // rest waits in the pipe, which drops past its 32 frames.
    const flood = definition(
      [
        { id: 'flood', executable: 'test-flood' },
        { id: 'slow', executable: 'test-slow' },
      ],
      [pipe('p1', 'flood', 'slow', { capacity: 32 })],
    );
    await rt.start(healthy);
    const client = await FrameClient.connect(portOf(rt, healthy.id));
    await rt.start(flood);
    // Two seconds of the healthy stream, waited for (not slept). A starved generator skips ahead
    // and marks the skip (`discontinuity`), so continuous timestamps prove it was never held up
    // past its backlog bound;
    // how fast the machine is plays no part.
    const startFrames = client.frames.length;
    await eventually(
      () => client.frames.length >= startFrames + 200,
      20_000,
      'healthy frames during the flood',
    );
    // This thread still answers at once: a status read needs no round trip to a worker.
    expect(rt.status(healthy.id)!.nodes.gen!.state).toBe('running');
    client.close();

    const pipeStatus = rt.status(flood.id)!.pipes.p1!;
    expect(pipeStatus.framesDropped).toBeGreaterThan(0);
    expect(pipeStatus.queueDepth).toBeLessThanOrEqual(32);
    expect(rt.status(flood.id)!.nodes.flood!.metrics.itemsProcessed).toBeGreaterThan(10_000);
    expect(seqGaps(client.seqs())).toEqual([]);
    const during = client.frames.slice(startFrames);
    expect(during.filter((r) => r.frame.discontinuity === true)).toEqual([]);
    expect(pacingProblems(during)).toEqual([]);
  }, 30_000);
});
