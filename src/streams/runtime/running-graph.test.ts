/**
 * The stream graph in-process (no worker): fan-out shares one frozen frame, delivery is
 * asynchronous from the producer, seq is numbered per port, and `block` pipes hold back a
 * non-source producer instead of losing frames.
 */
import { describe, expect, test } from 'vitest';
import type { Frame } from '../../core/frame.js';
import { RunningGraph } from './running-graph.js';
import type { NodeContext, NodeFactory } from '../../core/node.js';
import type { NodeDef } from '../../core/stream-model.js';
import { definition, pipe } from '../../../test/runtime/helpers.js';
import { eventually } from '../../../test/support/wait.js';

function frame(value: number): Frame {
  return { seq: 99, timestamp: value, sampleRate: 10, channels: ['a'], data: new Float32Array([value]) };
}

/** A source the test drives by hand through `emit`, or through the context of its latest instance. */
function manualSource() {
  let context: NodeContext | undefined;
  const factory: NodeFactory = (c) => {
    context = c;
    return { start: () => Promise.resolve(), stop: () => Promise.resolve() };
  };
  return { factory, emit: (f: Frame) => context?.emit('out', f), context: () => context };
}

function recorder() {
  const frames: Frame[] = [];
  const factory: NodeFactory = () => ({
    start: () => Promise.resolve(),
    onFrame: (_port, f) => frames.push(f),
    stop: () => Promise.resolve(),
  });
  return { factory, frames };
}

function graphOf(factories: Record<string, NodeFactory>) {
  return new RunningGraph({
    streamId: 's',
    dataDir: '/tmp',
    resolveFactory: (node: NodeDef) => {
      const factory = factories[node.executable];
      return factory === undefined
        ? Promise.reject(new Error(`no ${node.executable}`))
        : Promise.resolve(factory);
    },
  });
}

describe('RunningGraph', () => {
  test("fan-out hands the same frozen frame to every consumer, inside the source's emit", async () => {
    const src = manualSource();
    const a = recorder();
    const b = recorder();
    const graph = graphOf({ src: src.factory, a: a.factory, b: b.factory });
    await graph.start(
      definition(
        [
          { id: 'src', executable: 'src' },
          { id: 'a', executable: 'a' },
          { id: 'b', executable: 'b' },
        ],
        [pipe('pa', 'src', 'a'), pipe('pb', 'src', 'b')],
      ),
    );
    src.emit(frame(1));
    // A source's frame goes through the graph before its emit returns (scheduler.ts says why).
    expect(a.frames.length + b.frames.length).toBe(2);
    // The event loop turns first: the at-once turns of one loop turn share the drain's budget, which
    // a preempted first turn (a loaded machine) can spend alone.
    await new Promise((resolve) => setImmediate(resolve));
    src.emit(frame(2));
    expect(a.frames.length + b.frames.length).toBe(4);
    expect(a.frames[0]).toBe(b.frames[0]);
    expect(a.frames[1]).toBe(b.frames[1]);
    expect(Object.isFrozen(a.frames[0])).toBe(true);
    expect(Object.isFrozen(a.frames[0]!.channels)).toBe(true);
    // seq is numbered by the runtime per output port, whatever the node put in it.
    expect(a.frames.map((f) => f.seq)).toEqual([0, 1]);
    expect(a.frames[0]!.createdAt).toBeTypeOf('number');
    const status = graph.status();
    expect(status.nodes.src!.metrics.itemsProcessed).toBe(2);
    expect(status.nodes.a!.metrics.itemsProcessed).toBe(2);
    expect(status.pipes.pa).toEqual({ framesSent: 2, framesDropped: 0, queueDepth: 0 });
    expect(status.nodes.a!.metrics.latency?.pa?.p50).toBeGreaterThanOrEqual(0);
    await graph.stop();
    expect(graph.status().nodes.a!.state).toBe('terminated');
  });

  test('drop-oldest counts the frames a paused consumer misses', async () => {
    const src = manualSource();
    const a = recorder();
    const graph = graphOf({ src: src.factory, a: a.factory });
    await graph.start(
      definition(
        [
          { id: 'src', executable: 'src' },
          { id: 'a', executable: 'a' },
        ],
        [pipe('pa', 'src', 'a', { capacity: 4 })],
      ),
    );
    await graph.signalNode('a', 'pause', {});
    for (let i = 0; i < 10; i++) src.emit(frame(i));
    await eventually(
      () => graph.status().nodes.a!.metrics.framesDropped === 6,
      2000,
      'the drops of the full pipe',
    );
    expect(a.frames).toEqual([]);
    expect(graph.status().nodes.a!.metrics).toMatchObject({ framesDropped: 6, queueDepth: 4 });
    await graph.signalNode('a', 'resume', {});
    await eventually(() => a.frames.length === 4, 2000, 'the queued frames');
    expect(a.frames.map((f) => f.timestamp)).toEqual([6, 7, 8, 9]);
    await graph.stop();
  });

  test('a congested block pipe holds back its (non-source) producer instead of losing frames', async () => {
    const src = manualSource();
    const sink = recorder();
    const pass: NodeFactory = (c) => ({
      start: () => Promise.resolve(),
      onFrame: (_p, f) => {
        c.emit('out', f);
      },
      stop: () => Promise.resolve(),
    });
    const graph = graphOf({ src: src.factory, pass, sink: sink.factory });
    await graph.start(
      definition(
        [
          { id: 'src', executable: 'src' },
          { id: 'pass', executable: 'pass' },
          { id: 'sink', executable: 'sink' },
        ],
        [
          pipe('p1', 'src', 'pass', { capacity: 1000 }),
          pipe('p2', 'pass', 'sink', { policy: 'block', capacity: 2 }),
        ],
      ),
    );
    await graph.signalNode('sink', 'pause', {});
    for (let i = 0; i < 20; i++) src.emit(frame(i));
    await eventually(() => graph.status().pipes.p2!.queueDepth === 2, 2000, 'p2 to fill');
    let status = graph.status();
    // pass forwarded until p2 reached its capacity, then stopped being fed.
    expect(status.pipes.p2!.queueDepth).toBe(2);
    expect(status.pipes.p1!.queueDepth).toBe(18);
    expect(status.pipes.p2!.framesDropped + status.pipes.p1!.framesDropped).toBe(0);
    await graph.signalNode('sink', 'resume', {});
    await eventually(() => sink.frames.length === 20, 2000, 'every frame');
    expect(sink.frames.map((f) => f.timestamp)).toEqual([...Array(20).keys()]);
    status = graph.status();
    expect(status.nodes.sink!.metrics.framesDropped).toBe(0);
    await graph.stop();
  });

  test('a node that cannot start fails the whole start with its name, and nothing keeps running', async () => {
    const a = recorder();
    const graph = graphOf({ a: a.factory });
    await expect(
      graph.start(
        definition(
          [
            { id: 'a', executable: 'a' },
            { id: 'bad', executable: 'missing' },
          ],
          [],
        ),
      ),
    ).rejects.toMatchObject({ code: 'validation_failed', message: 'node bad: no missing' });
    expect(graph.status().nodes.a!.state).toBe('terminated');
    expect(graph.status().nodes.bad!.state).toBe('error');
    expect(graph.status().nodes.bad!.metrics.lastError).toBe('no missing');
  });

  test('a source restarted by its supervisor while the stream is paused comes back paused', async () => {
    const flaky = manualSource();
    const a = recorder();
    const graph = graphOf({ flaky: flaky.factory, a: a.factory });
    await graph.start(
      definition(
        [
          { id: 'src', executable: 'flaky' },
          { id: 'a', executable: 'a' },
        ],
        [pipe('pa', 'src', 'a')],
      ),
    );
    graph.pause();
    flaky.context()?.fail(new Error('boom'));
    expect(graph.status().nodes.src!.state).toBe('initialized');
    await eventually(() => graph.status().nodes.src!.metrics.restarts === 1, 3000, 'the restart');
    await eventually(() => graph.status().nodes.src!.state === 'paused', 1000, 'paused after restart');
    graph.resume();
    expect(graph.status().nodes.src!.state).toBe('running');
    await graph.stop();
  });

  test("a failed instance's late log lines are kept, its late frames are not", async () => {
    const dying = manualSource();
    const a = recorder();
    const graph = graphOf({ dying: dying.factory, a: a.factory });
    await graph.start(
      definition(
        [
          { id: 'src', executable: 'dying', config: { restart: 'no' } },
          { id: 'a', executable: 'a' },
        ],
        [pipe('pa', 'src', 'a')],
      ),
    );
    const failed = dying.context();
    failed?.fail(new Error('boom'));
    expect(graph.status().nodes.src!.state).toBe('error');
    // What a crashed process wrote after its exit was reported: its traceback, here.
    failed?.log('    at onData (/scripts/crash.ts:7:11)', 'stderr');
    failed?.emit('out', frame(1));
    const lines = graph
      .collectLogs()
      .find((l) => l.nodeId === 'src')
      ?.lines.map((l) => l.line);
    expect(lines).toContain('    at onData (/scripts/crash.ts:7:11)');
    await new Promise((resolve) => setImmediate(resolve));
    expect(a.frames).toEqual([]);
    await graph.stop();
  });
});
