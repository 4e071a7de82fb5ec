/**
 * End to end through real worker threads and real WebSocket clients: a signal generator feeding a
 * websocket node delivers frames at the configured rate without seq gaps; a stalled client loses
 * frames while a second client gets every one; a port in use fails the start with a clear message.
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { HeadsetdError } from '../../src/core/errors.js';
import { decodeFrameBinary } from '../../src/core/frame-binary.js';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { NodeFailureError } from '../../src/streams/runtime/stream-runtime.js';
import { definition, FrameClient, pacingProblems, pipe, seqGaps } from '../runtime/helpers.js';
import { eventually } from '../support/wait.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'headsetd-runtime-'));
let runtime: WorkerRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

function newRuntime(): WorkerRuntime {
  runtime = new WorkerRuntime({ workerEntry: STREAM_HOST, dataDir, executablesDirs: [] });
  return runtime;
}

function boundPort(rt: WorkerRuntime, streamId: string, nodeId: string): number {
  const port = rt.status(streamId)?.nodes[nodeId]?.info?.port;
  if (typeof port !== 'number') throw new Error(`node ${nodeId} reports no port`);
  return port;
}

describe('generator → websocket', () => {
  test('paces frames by their sample count (none early, timestamps continuous) with no seq gaps', {
    timeout: 30_000,
  }, async () => {
    const rt = newRuntime();
    const stream = definition(
      [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 250, amplitudes: [1], frequencies: [10], channels: 2 },
        },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
      ],
      [pipe('p1', 'gen', 'ws')],
    );
    await rt.start(stream);
    const client = await FrameClient.connect(boundPort(rt, stream.id, 'ws'));
    await eventually(() => client.frames.length > 5, 5000, 'first frames');
    const first = client.frames.length;
    // Two seconds' worth of frames, waited for (not slept): the generator's real-time rate on this
    // machine is measured by the benchmarks; here its timeline and pacing are checked.
    await eventually(() => client.samples() >= 500, 15_000, 'two seconds of samples');
    client.close();

    expect(pacingProblems(client.frames)).toEqual([]);
    expect(seqGaps(client.seqs())).toEqual([]);
    const sample = client.frames[first]!.frame;
    expect(sample.channels).toEqual(['ch1', 'ch2']);
    expect(sample.sampleRate).toBe(250);
    // About 10 ms per frame: 2 or 3 samples at 250 Hz, and never more than a frame's worth. A
    // wake-up that came late emits the samples then due as full frames and the rest in a shorter
    // one (a frame of 1 sample after a hiccup of the machine), so the typical frame is the median.
    const sizes = client.frames.map(({ frame }) => frame.data.length).sort((a, b) => a - b);
    const median = sizes[Math.floor(sizes.length / 2)] ?? 0;
    expect(median).toBeGreaterThanOrEqual(2);
    expect(median).toBeLessThanOrEqual(3);
    expect(sizes.at(-1)).toBeLessThanOrEqual(4);
    const status = rt.status(stream.id)!;
    expect(status.nodes.gen!.state).toBe('running');
    expect(status.nodes.ws!.metrics.itemsProcessed).toBeGreaterThan(100);
    // Latency is measured per pipe (its size depends on the machine: the benchmarks judge it).
    expect(status.nodes.ws!.metrics.latency?.p1?.p99).toBeGreaterThanOrEqual(0);
  });

  test('a stalled client loses frames while a second client gets all of them', async () => {
    const rt = newRuntime();
    // About 1.5 MB/s of JSON: enough to fill a stalled client's socket buffers within seconds, and
    // little enough that the reading client (in this process, beside a CPU hog) stays within its
    // send limit: at 3 MB/s a pause of a third of a second of this process made it a stalled one too.
    const stream = definition(
      [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 4000, amplitudes: [1], frequencies: [10], channels: 16, noise: 0.1, seed: 1 },
        },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
      ],
      [pipe('p1', 'gen', 'ws')],
    );
    await rt.start(stream);
    const port = boundPort(rt, stream.id, 'ws');
    const stalled = await FrameClient.connect(port);
    const fast = await FrameClient.connect(port);
    stalled.stall();
    await eventually(
      () => (rt.status(stream.id)?.nodes.ws?.metrics.framesDropped ?? 0) > 50,
      25_000,
      'drops for the stalled client',
    );
    const fastCount = fast.frames.length;
    await eventually(() => fast.frames.length > fastCount + 50, 5000, 'more frames for the fast client');
    stalled.close();
    fast.close();

    expect(seqGaps(fast.seqs())).toEqual([]);
    expect(stalled.frames.length).toBeLessThan(fast.frames.length);
    // The generator never slowed: its count follows the clock.
    const gen = rt.status(stream.id)!.nodes.gen!.metrics;
    expect(gen.framesDropped).toBe(0);
  }, 40_000);

  test("the reference examples' command lines run the built-ins; binary format decodes", async () => {
    const rt = newRuntime();
    const stream = definition(
      [
        {
          id: 'gen',
          type: 'EXECUTABLE_PRODUCER',
          executable: 'node /usr/share/engines/worker-scripts/SignalGenerator.js',
          config: { sampleRate: 100, amplitudes: [1], frequencies: [1], channels: 3 },
        },
        {
          id: 'out',
          type: 'EXECUTABLE_CONSUMER',
          executable: 'node /usr/share/engines/worker-scripts/WebSocket.js',
          config: { port: 0, format: 'binary' },
        },
      ],
      [pipe('p1', 'gen', 'out')],
    );
    await rt.start(stream);
    const port = rt.status(stream.id)!.nodes.out!.info!.port as number;
    const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
    const message = await new Promise<Buffer>((resolve, reject) => {
      socket.once('message', (data) => {
        resolve(data as Buffer);
      });
      socket.once('error', reject);
    });
    socket.terminate();
    const frame = decodeFrameBinary(new Uint8Array(message));
    expect(frame.channels).toEqual(['ch1', 'ch2', 'ch3']);
    expect(frame.sampleRate).toBe(100);
    expect(frame.data.length % 3).toBe(0);
  });

  test('a port in use fails the start with a message naming the node and the port', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const rt = newRuntime();
      const stream = definition(
        [
          {
            id: 'gen',
            executable: 'signal-generator',
            config: { sampleRate: 100, amplitudes: [1], frequencies: [1] },
          },
          { id: 'ws1', executable: 'websocket', config: { port } },
        ],
        [pipe('p1', 'gen', 'ws1')],
      );
      const error = await rt.start(stream).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HeadsetdError);
      expect((error as HeadsetdError).code).toBe('validation_failed');
      expect((error as HeadsetdError).message).toBe(`node ws1: port ${port} is already in use`);
      // The runtime port's typed failure, rebuilt on this side of the worker boundary: the
      // manager reads the node from it (it read `details.nodeId` while the graph wrote `node`).
      expect(error).toBeInstanceOf(NodeFailureError);
      expect((error as NodeFailureError).failure).toEqual({
        nodeId: 'ws1',
        reason: `port ${port} is already in use`,
        field: 'port',
        port,
      });
      expect(rt.status(stream.id)).toBeUndefined();
      expect(rt.logs(stream.id, 'ws1').some((l) => l.line.includes('already in use'))).toBe(true);
    } finally {
      blocker.close();
    }
  });
});
