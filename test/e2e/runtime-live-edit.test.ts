/**
 * Live editing and lifecycle signals through real worker threads: an update adds a node and a pipe
 * whose frames arrive while untouched nodes keep running (no restart, seq continuous); pause stops
 * the sources and resume continues seq with a discontinuity; node signals, custom ones included.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { definition, FrameClient, pipe, seqGaps, TEST_NODES_MODULE } from '../runtime/helpers.js';
import { eventually } from '../support/wait.js';
import { unusedPort } from '../support/ports.js';
import { scratchDir } from '../support/scratch.js';

const dataDir = scratchDir('headsetd-runtime');
let runtime: WorkerRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

function newRuntime(): WorkerRuntime {
  runtime = new WorkerRuntime({
    workerEntry: STREAM_HOST,
    dataDir,
    executablesDirs: [],
    extraExecutableModules: [TEST_NODES_MODULE],
  });
  return runtime;
}

const generator = {
  id: 'gen',
  executable: 'signal-generator',
  config: { sampleRate: 500, amplitudes: [1], frequencies: [5] },
};

function portOf(rt: WorkerRuntime, streamId: string, nodeId: string): number | undefined {
  const port = rt.status(streamId)?.nodes[nodeId]?.info?.port;
  return typeof port === 'number' ? port : undefined;
}

describe('live editing', () => {
  test('an update adds a node and a pipe, frames arrive, untouched nodes keep their seq', async () => {
    const rt = newRuntime();
    const ws1 = { id: 'ws1', executable: 'websocket', config: { port: 0 } };
    const first = definition([generator, ws1], [pipe('p1', 'gen', 'ws1')]);
    await rt.start(first);
    const client1 = await FrameClient.connect(portOf(rt, first.id, 'ws1')!);
    await eventually(() => client1.frames.length > 10, 5000, 'frames on ws1');

    const ws2 = { id: 'ws2', executable: 'WebSocket', config: { port: 0, format: 'json' } };
    const second = definition(
      [generator, ws1, ws2],
      [pipe('p1', 'gen', 'ws1'), pipe('p2', 'gen', 'ws2')],
      first.id,
    );
    await rt.update(second);
    const port2 = portOf(rt, first.id, 'ws2');
    expect(port2).toBeTypeOf('number');
    const client2 = await FrameClient.connect(port2!);
    await eventually(() => client2.frames.length > 10, 5000, 'frames on ws2');

    // Removing the new branch again stops it and its pipe.
    await rt.update(first);
    expect(rt.status(first.id)!.nodes.ws2).toBeUndefined();
    expect(rt.status(first.id)!.pipes.p2).toBeUndefined();
    const count = client1.frames.length;
    await eventually(() => client1.frames.length > count + 10, 5000, 'more frames on ws1');
    client1.close();
    client2.close();

    expect(seqGaps(client1.seqs())).toEqual([]);
    expect(client1.frames.some((r) => r.frame.discontinuity === true)).toBe(false);
    // ws2 sees the generator's numbering, joined mid-stream.
    expect(client2.frames[0]!.frame.seq).toBeGreaterThan(0);
    expect(seqGaps(client2.seqs())).toEqual([]);
    const status = rt.status(first.id)!;
    expect(status.nodes.gen!.metrics.restarts).toBe(0);
    expect(status.nodes.ws1!.metrics.restarts).toBe(0);
  });

  test('a node whose config changes is restarted; its neighbours are not', async () => {
    const rt = newRuntime();
    const log = { id: 'log', executable: 'logger' };
    const first = definition([generator, log], [pipe('p1', 'gen', 'log')]);
    await rt.start(first);
    await eventually(() => rt.logs(first.id, 'log').length > 5, 5000, 'frames at 500 Hz');
    const changed = definition(
      [{ ...generator, config: { ...generator.config, sampleRate: 250 } }, log],
      [pipe('p1', 'gen', 'log')],
      first.id,
    );
    await rt.update(changed);
    const status = rt.status(first.id)!;
    expect(status.nodes.gen!.metrics.restarts).toBe(1);
    expect(status.nodes.log!.metrics.restarts).toBe(0);
    await eventually(
      () => rt.logs(first.id, 'log').some((l) => l.line.includes('sampleRate=250 discontinuity')),
      5000,
      'a 250 Hz frame marked as a discontinuity',
    );
  });
});

describe('pause, resume and node signals', () => {
  test('pause stops the sources; resume continues seq and marks the gap', async () => {
    const rt = newRuntime();
    const stream = definition(
      [generator, { id: 'ws', executable: 'websocket', config: { port: 0 } }],
      [pipe('p1', 'gen', 'ws')],
    );
    await rt.start(stream);
    const client = await FrameClient.connect(portOf(rt, stream.id, 'ws')!);
    await eventually(() => client.frames.length > 10, 5000, 'frames');
    await rt.pause(stream.id);
    expect(rt.status(stream.id)!.nodes.gen!.state).toBe('paused');
    expect(rt.status(stream.id)!.nodes.ws!.state).toBe('running');
    // The pause itself is what is tested: frames sent before it may still land meanwhile, and the
    // resumed source's first frame (marked as a discontinuity) must start after the whole pause.
    await new Promise((r) => setTimeout(r, 300));
    await rt.resume(stream.id);
    await eventually(
      () => {
        const resumed = client.frames.findIndex((r) => r.frame.discontinuity === true);
        return resumed >= 0 && resumed + 5 < client.frames.length;
      },
      5000,
      'frames after resume',
    );
    client.close();

    const before = client.frames.findIndex((r) => r.frame.discontinuity === true);
    expect(before).toBeGreaterThan(10);
    const last = client.frames[before - 1]!.frame;
    const next = client.frames[before]!.frame;
    expect(next.seq).toBe(last.seq + 1);
    // A source that kept running while paused would leave no gap in its timeline (and mark none).
    expect(next.timestamp - last.timestamp).toBeGreaterThan(250);
    expect(client.frames.slice(before + 1).some((r) => r.frame.discontinuity === true)).toBe(false);
  });

  test('node signals: pause/resume/stop/start per node, custom signals reach the executable', async () => {
    const rt = newRuntime();
    const stream = definition(
      [generator, { id: 'pass', executable: 'test-pass' }, { id: 'log', executable: 'logger' }],
      [pipe('p1', 'gen', 'pass'), pipe('p2', 'pass', 'log')],
    );
    await rt.start(stream);
    await rt.signalNode(stream.id, 'pass', 'marker', { text: 'eyes closed' });
    expect(rt.logs(stream.id, 'pass').map((l) => l.line)).toContain('signal marker: {"text":"eyes closed"}');

    await rt.signalNode(stream.id, 'log', 'stop', {});
    expect(rt.status(stream.id)!.nodes.log!.state).toBe('terminated');
    await expect(rt.signalNode(stream.id, 'log', 'pause', {})).rejects.toMatchObject({
      code: 'invalid_state',
      details: { state: 'terminated', signal: 'pause' },
    });
    await rt.signalNode(stream.id, 'log', 'start', {});
    expect(rt.status(stream.id)!.nodes.log!.state).toBe('running');
    await rt.signalNode(stream.id, 'log', 'pause', {});
    await rt.signalNode(stream.id, 'log', 'pause', {}); // asking for the current state changes nothing
    expect(rt.status(stream.id)!.nodes.log!.state).toBe('paused');
    await rt.signalNode(stream.id, 'log', 'resume', {});
    expect(rt.status(stream.id)!.nodes.log!.state).toBe('running');
    await expect(rt.signalNode(stream.id, 'log', 'marker', {})).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(rt.signalNode(stream.id, 'nope', 'stop', {})).rejects.toMatchObject({
      code: 'node_not_found',
    });

    await rt.stop(stream.id);
    expect(rt.status(stream.id)).toBeUndefined();
    // Logs outlive the stream until its next start.
    expect(rt.logs(stream.id, 'pass').length).toBeGreaterThan(0);
  });

  test('a stop while the start is still in progress leaves nothing running and frees the port', async () => {
    const rt = newRuntime();
    const port = await unusedPort();
    const stream = definition(
      [generator, { id: 'ws', executable: 'websocket', config: { port } }],
      [pipe('p1', 'gen', 'ws')],
    );
    const started = rt.start(stream).then(
      () => 'started',
      () => 'refused',
    );
    await rt.stop(stream.id);
    expect(['started', 'refused']).toContain(await started);
    expect(rt.status(stream.id)).toBeUndefined();
    // The port is free again: the websocket node was stopped, not abandoned.
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    server.close();
  });
});
