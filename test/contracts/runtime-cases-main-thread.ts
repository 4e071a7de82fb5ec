/**
 * The contract's cases on what crosses between a stream and the caller's thread: events
 * (`onEvent`), frames out of a `tap` node and into an `ingest` node (`tap`, `feed`), and the end of
 * the runtime (`close`, `abort`). The crashing and warning nodes are the test nodes of
 * test/runtime/fixtures/test-nodes.ts, which every runtime under the contract runs.
 */
import { expect } from 'vitest';
import type { Frame } from '../../src/core/frame.js';
import { HeadsetdError } from '../../src/core/errors.js';
import type { RuntimeEvent } from '../../src/streams/runtime/stream-runtime.js';
import { eventually } from '../support/wait.js';
import { definition, generator, type RuntimeCase, rejection } from './runtime-case-helpers.js';

/** A stream whose `ingest` node pipes straight into a `tap` node. */
function ingestToTap() {
  return definition(
    [
      { id: 'in', executable: 'ingest', config: { sampleRate: 100 } },
      { id: 'tap', executable: 'tap', config: {} },
    ],
    [{ id: 'p', source: 'in', destination: 'tap' }],
  );
}

function frame(samples: number[]): Frame {
  return {
    seq: 0,
    timestamp: Date.now(),
    sampleRate: 100,
    channels: ['Cz', 'O1'],
    data: Float32Array.from(samples),
  };
}

function samplesOf(frames: readonly Frame[]): number[][] {
  return frames.map((f) => [...f.data]);
}

async function startRefused(start: Promise<void>): Promise<void> {
  const error = await rejection(start);
  expect(error).toBeInstanceOf(HeadsetdError);
  expect((error as HeadsetdError).code).toBe('invalid_state');
}

export const MAIN_THREAD_CASES: readonly RuntimeCase[] = [
  {
    title:
      'a node that crashes is heard by every listener as node_crashed; without a restart it stays in error while the others run',
    covers: ['onEvent', 'status'],
    async run({ runtime }) {
      const heard: RuntimeEvent[] = [];
      // A listener that throws keeps no other from the event.
      runtime.onEvent(() => {
        throw new Error('a careless listener');
      });
      runtime.onEvent((event) => heard.push(event));
      const stream = definition(
        [generator, { id: 'boom', executable: 'test-throw', config: { restart: 'no' } }],
        [{ id: 'p', source: 'gen', destination: 'boom' }],
      );
      await runtime.start(stream);
      const crash = await eventually(
        () => heard.find((e) => e.type === 'node_crashed' && e.streamId === stream.id),
        10_000,
        'node_crashed',
      );
      expect(crash).toMatchObject({ type: 'node_crashed', nodeId: 'boom', willRestart: false });
      expect(crash.message).toContain('deliberate failure');
      const boom = await eventually(
        () => {
          const node = runtime.status(stream.id)?.nodes.boom;
          return node?.state === 'error' ? node : undefined;
        },
        10_000,
        'the crashed node in error',
      );
      expect(boom.metrics.lastError).toContain('deliberate failure');
      expect(runtime.status(stream.id)?.nodes.gen?.state).toBe('running');
      await runtime.stop(stream.id);
    },
  },
  {
    title:
      'a node that hangs its thread fails its stream: stream_failed, with the last status (the culprit in error) readable while listeners run',
    covers: ['onEvent', 'status', 'feed'],
    async run({ runtime }) {
      const heard: { event: RuntimeEvent; status: ReturnType<typeof runtime.status> }[] = [];
      const stream = definition(
        [generator, { id: 'loop', executable: 'test-loop', config: {} }],
        [{ id: 'p', source: 'gen', destination: 'loop' }],
      );
      runtime.onEvent((event) => heard.push({ event, status: runtime.status(event.streamId) }));
      await runtime.start(stream);
      const failed = await eventually(
        () => heard.find((h) => h.event.type === 'stream_failed' && h.event.streamId === stream.id),
        20_000,
        'stream_failed',
      );
      expect(failed.event.message).toContain(stream.id);
      expect(failed.status?.nodes.loop?.state).toBe('error');
      expect(failed.status?.nodes.gen?.state).toBe('terminated');
      expect(runtime.status(stream.id)).toBeUndefined();
      expect(runtime.feed(stream.id, 'gen', frame([1, 2]))).toBe(false);
    },
  },
  {
    title: 'a node that warns is heard as node_warning naming its stream and node',
    covers: ['onEvent'],
    async run({ runtime }) {
      const heard: RuntimeEvent[] = [];
      runtime.onEvent((event) => heard.push(event));
      const stream = definition([{ id: 'careful', executable: 'test-warn', config: {} }], []);
      await runtime.start(stream);
      const warning = await eventually(
        () => heard.find((e) => e.type === 'node_warning'),
        10_000,
        'node_warning',
      );
      expect(warning).toMatchObject({ streamId: stream.id, nodeId: 'careful' });
      expect(warning.message).toContain('deliberate warning');
      await runtime.stop(stream.id);
    },
  },
  {
    title:
      'an eeg-source whose device holds frames back is node_degraded, then node_recovered; a stop ends its subscription',
    covers: ['onEvent'],
    async run({ runtime, device }) {
      const heard: RuntimeEvent[] = [];
      runtime.onEvent((event) => heard.push(event));
      const stream = definition([{ id: 'eeg', executable: 'eeg-source', config: { channels: ['O1'] } }], []);
      await runtime.start(stream);
      const subscription = await eventually(() => device.live()[0], 10_000, 'the subscription');
      expect(subscription.channels).toEqual(['O1']);
      subscription.onHold?.('O1 is no longer acquired');
      const degraded = await eventually(
        () => heard.find((e) => e.type === 'node_degraded'),
        10_000,
        'node_degraded',
      );
      expect(degraded).toMatchObject({
        streamId: stream.id,
        nodeId: 'eeg',
        message: 'O1 is no longer acquired',
      });
      // A frame with the node's channel ends the hold.
      device.send({ seq: 0, timestamp: 0, sampleRate: 250, channels: ['O1'], data: new Float32Array(3) });
      const recovered = await eventually(
        () => heard.find((e) => e.type === 'node_recovered'),
        10_000,
        'node_recovered',
      );
      expect(recovered).toMatchObject({ streamId: stream.id, nodeId: 'eeg' });
      await runtime.stop(stream.id);
      await eventually(() => subscription.released, 10_000, 'the subscription released');
    },
  },
  {
    title:
      'a frame fed to an ingest node reaches the tap it pipes into, copied: tap listeners outlive stops and starts until removed',
    covers: ['tap', 'feed'],
    async run({ runtime }) {
      const stream = ingestToTap();
      const kept: Frame[] = [];
      const removed: Frame[] = [];
      // Added before the start: a listener waits for the stream.
      const stopKept = runtime.tap(stream.id, 'tap', (f) => kept.push(f));
      const stopRemoved = runtime.tap(stream.id, 'tap', (f) => removed.push(f));
      runtime.tap(stream.id, 'tap', () => {
        throw new Error('a careless listener');
      });
      await runtime.start(stream);
      const first = frame([1, 2, 3, 4]);
      expect(runtime.feed(stream.id, 'in', first)).toBe(true);
      first.data[0] = 99; // the caller's frame is not kept
      await eventually(() => kept.length >= 1 && removed.length >= 1, 10_000, 'the first frame at the tap');
      expect(samplesOf(kept)).toEqual([[1, 2, 3, 4]]);
      expect(kept[0]).toMatchObject({ sampleRate: 100, channels: ['Cz', 'O1'] });

      await runtime.stop(stream.id);
      await runtime.start(stream);
      stopRemoved();
      expect(runtime.feed(stream.id, 'in', frame([5, 6, 7, 8]))).toBe(true);
      await eventually(() => kept.length >= 2, 10_000, 'the second frame at the tap');
      expect(samplesOf(kept)).toEqual([
        [1, 2, 3, 4],
        [5, 6, 7, 8],
      ]);
      expect(removed).toHaveLength(1);
      stopKept();
      await runtime.stop(stream.id);
    },
  },
  {
    title: 'feed answers false for a stream that does not run here',
    covers: ['feed'],
    async run({ runtime }) {
      const stream = ingestToTap();
      expect(runtime.feed(stream.id, 'in', frame([1, 2]))).toBe(false);
      await runtime.start(stream);
      expect(runtime.feed(stream.id, 'in', frame([1, 2]))).toBe(true);
      await runtime.stop(stream.id);
      expect(runtime.feed(stream.id, 'in', frame([1, 2]))).toBe(false);
    },
  },
  {
    title: 'close stops every stream; nothing runs or starts after it',
    covers: ['close'],
    async run({ runtime }) {
      const streams = [definition([generator], []), ingestToTap()];
      for (const stream of streams) await runtime.start(stream);
      await runtime.close();
      for (const stream of streams) expect(runtime.status(stream.id)).toBeUndefined();
      expect(runtime.feed(streams[1]!.id, 'in', frame([1, 2]))).toBe(false);
      await startRefused(runtime.start(definition([generator], [])));
      // A second close has nothing left to do.
      await runtime.close();
    },
  },
  {
    title: 'abort ends every stream at once: a pending close resolves, nothing runs or starts after it',
    covers: ['abort', 'close'],
    async run({ runtime }) {
      const streams = [definition([generator], []), ingestToTap()];
      for (const stream of streams) await runtime.start(stream);
      const closing = runtime.close();
      // Optional: a runtime without child processes may have none, and close alone ends it all.
      runtime.abort?.();
      await closing;
      for (const stream of streams) expect(runtime.status(stream.id)).toBeUndefined();
      expect(runtime.feed(streams[1]!.id, 'in', frame([1, 2]))).toBe(false);
      await startRefused(runtime.start(definition([generator], [])));
    },
  },
];
