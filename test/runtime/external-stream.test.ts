/**
 * External nodes in a real running stream (worker thread, pipes, supervision): a JavaScript and a
 * Python example node between a signal generator and websocket outputs, resolved from an
 * executables directory by their command lines; kill -9 of one is restarted while the other
 * branch keeps flowing.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { definition, FrameClient, pipe, seqGaps } from './helpers.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/nodes', import.meta.url));
const dataDir = scratchDir('headsetd-external');
let runtime: WorkerRuntime | undefined;
const clients: FrameClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await runtime?.close();
  runtime = undefined;
});

function portOf(rt: WorkerRuntime, streamId: string, nodeId: string): number {
  const port = rt.status(streamId)?.nodes[nodeId]?.info?.port;
  if (typeof port !== 'number') throw new Error(`${nodeId} has no port`);
  return port;
}

test('a JavaScript and a Python node run in a stream; kill -9 of one restarts it alone', async () => {
  const rt = new WorkerRuntime({ workerEntry: STREAM_HOST, dataDir, executablesDirs: [EXAMPLES] });
  runtime = rt;
  const stream = definition(
    [
      // 10 Hz of amplitude 2 at 250 Hz: alpha power A²/2 = 2.
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 250, amplitudes: [2], frequencies: [10] },
      },
      { id: 'avg', executable: 'node moving-average.mjs', config: { window: 4, protocol: 'binary' } },
      { id: 'bp', executable: '/usr/bin/python3 band_power.py', config: { windowSeconds: 1 } },
      { id: 'ws1', executable: 'websocket', config: { port: 0 } },
      { id: 'ws2', executable: 'websocket', config: { port: 0 } },
    ],
    [pipe('p1', 'gen', 'avg'), pipe('p2', 'avg', 'ws1'), pipe('p3', 'gen', 'bp'), pipe('p4', 'bp', 'ws2')],
  );
  await rt.start(stream);
  const averaged = await FrameClient.connect(portOf(rt, stream.id, 'ws1'));
  const power = await FrameClient.connect(portOf(rt, stream.id, 'ws2'));
  clients.push(averaged, power);

  await eventually(() => averaged.frames.length > 20, 10_000, 'moving-average frames');
  await eventually(() => power.frames.length > 20, 15_000, 'band-power frames');
  // A 4-sample mean of a 10 Hz sine at 250 Hz stays within its amplitude, and is not all zero.
  const values = averaged.frames.flatMap((r) => r.frame.data.flat());
  expect(Math.max(...values.map(Math.abs))).toBeLessThanOrEqual(2);
  expect(Math.max(...values.map(Math.abs))).toBeGreaterThan(1);
  for (const { frame } of power.frames.slice(-5)) expect(frame.data[0]![0]).toBeCloseTo(2, 1);

  // Custom signals reach the node; its stderr is in the node's log.
  await rt.signalNode(stream.id, 'avg', 'marker', { text: 'eyes closed' });
  await eventually(
    () => rt.logs(stream.id, 'avg').some((l) => l.stream === 'stderr' && l.line.includes('"eyes closed"')),
    5_000,
    'the marker in the log',
  );
  expect(rt.logs(stream.id, 'bp').some((l) => l.line.startsWith('band power 8'))).toBe(true);

  const pid = rt.status(stream.id)?.nodes.avg?.info?.pid;
  expect(pid).toBeTypeOf('number');
  const powerBefore = power.frames.length;
  process.kill(pid as number, 'SIGKILL');
  await eventually(
    () => (rt.status(stream.id)?.nodes.avg?.metrics.restarts ?? 0) >= 1,
    10_000,
    'the restart',
  );
  await eventually(
    () => {
      const newPid = rt.status(stream.id)?.nodes.avg?.info?.pid;
      return rt.status(stream.id)?.nodes.avg?.state === 'running' && newPid !== pid;
    },
    15_000,
    'the restarted node running',
  );
  const averagedBefore = averaged.frames.length;
  await eventually(() => averaged.frames.length > averagedBefore + 10, 10_000, 'frames after the restart');
  // The other branch never stopped.
  expect(power.frames.length).toBeGreaterThan(powerBefore);
  expect(seqGaps(power.seqs())).toEqual([]);
  expect(rt.status(stream.id)?.nodes.bp?.metrics.restarts).toBe(0);
  expect(rt.status(stream.id)?.nodes.avg?.metrics.lastError).toMatch(/killed by SIGKILL/);
}, 60_000);
