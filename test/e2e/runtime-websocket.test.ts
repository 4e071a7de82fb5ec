/**
 * End to end through real worker threads and real WebSocket clients: a signal generator feeding a
 * websocket node delivers frames at the configured rate without seq gaps; a stalled client loses
 * frames while a second keeps receiving, and every frame either misses is one the node reports
 * dropped for it; a port in use fails the start with a clear message.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { HeadsetdError } from '../../src/core/errors.js';
import { decodeFrameBinary } from '../../src/core/frame-binary.js';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { NodeFailureError } from '../../src/streams/runtime/stream-runtime.js';
import { definition, FrameClient, pacingProblems, pipe, seqGaps } from '../runtime/helpers.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

const dataDir = scratchDir('headsetd-runtime');
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
      // More than the generator emits at once after a stall of its thread (at most 1 s of catch-up,
      // 84 frames; beyond that it skips, seq unbroken): a busy machine makes no seq gap here.
      [pipe('p1', 'gen', 'ws', { capacity: 128 })],
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

  test('a stalled client loses frames while a second keeps receiving; every frame a client misses is one the node dropped for it', async () => {
    const rt = newRuntime();
    // About 1.5 MB/s of JSON, so that a stalled client's socket buffers (about 4 MB on loopback)
    // fill within seconds. The reading client runs in this process: on a busy machine it too may
    // fall a send limit behind and lose frames, so what it must show is not that it lost none but
    // that it lost only frames the node reports dropped for it (and the stalled client likewise).
    const stream = definition(
      [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 4000, amplitudes: [1], frequencies: [10], channels: 16, noise: 0.1, seed: 1 },
        },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
      ],
      // Every frame reaches the node (`block` keeps up to 16 × capacity, about 160 s of frames, and
      // never holds the source back), so that a gap a client sees is never the pipe's drop of a
      // frame the node did not get while this busy process starved the stream's thread.
      [pipe('p1', 'gen', 'ws', { policy: 'block', capacity: 1024 })],
    );
    await rt.start(stream);
    const port = boundPort(rt, stream.id, 'ws');
    const stalled = await FrameClient.connect(port);
    const reading = await FrameClient.connect(port);
    const names = new Map([stalled, reading].map((client) => [client, client.name()]));
    stalled.stall();
    const ws = () => rt.status(stream.id)!.nodes.ws!;
    await eventually(() => ws().metrics.framesDropped > 50, 25_000, 'drops for the stalled client');
    // The stream and the other client do not wait for the stalled one.
    const readingCount = reading.frames.length;
    await eventually(
      () => reading.frames.length > readingCount + 50,
      15_000,
      'more frames for the reading client',
    );
    // The stalled client reads again, catches up and is sent frames after those it lost.
    stalled.resume();
    await eventually(
      () => seqGaps(stalled.seqs()).length > 0,
      25_000,
      "a frame after the stalled client's gap",
    );

    // The source stops; once the node has taken every frame and each client has read all the node
    // sent it, what each client misses is set, and so are the node's counts.
    await rt.signalNode(stream.id, 'gen', 'stop', {});
    await eventually(() => ws().metrics.queueDepth === 0, 10_000, 'the websocket node taking every frame');
    await Promise.all([stalled.drained(), reading.drained()]);
    const { metrics, info } = ws();
    stalled.close();
    reading.close();

    const dropped = (info?.droppedByClient ?? {}) as Record<string, number>;
    expect(rt.status(stream.id)!.pipes.p1!.framesDropped).toBe(0);
    const lastSeq = metrics.itemsProcessed - 1;
    let missedInAll = 0;
    for (const client of [stalled, reading]) {
      const seqs = client.seqs();
      const first = seqs[0]!;
      const last = seqs.at(-1)!;
      // Missing before its last frame: the frames the node dropped for it before sending that one.
      const name = names.get(client)!;
      expect(last - first + 1 - seqs.length, name).toBe(dropped[name] ?? 0);
      missedInAll += lastSeq - first + 1 - seqs.length;
    }
    expect(dropped[names.get(stalled)!]).toBeGreaterThan(50);
    // Every frame offered to a client and not received, after its last one included, was counted.
    expect(metrics.framesDropped).toBe(missedInAll);
    // The generator never slowed: its count follows the clock.
    expect(rt.status(stream.id)!.nodes.gen!.metrics.framesDropped).toBe(0);
  }, 90_000);

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
