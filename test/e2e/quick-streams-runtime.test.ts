/**
 * The tap channel of the worker runtime (StreamRuntime.tap / feed): a tap node's frames reach the
 * main thread with their samples intact, and frames fed to an ingest node come out of the stream.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { Frame } from '../../src/core/frame.js';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { definition, pipe } from '../runtime/helpers.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

const dataDir = scratchDir('headsetd-tap');
let runtime: WorkerRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

function frameOf(seq: number, rows: number[][], channels = ['Cz', 'O1']): Frame {
  return {
    seq,
    timestamp: 1_700_000_000_000 + seq * 40,
    sampleRate: 250,
    channels,
    data: Float32Array.from(rows.flat()),
  };
}

describe('tap channel', () => {
  test('frames of a tap node reach the main thread in order, listener kept across a restart', async () => {
    runtime = new WorkerRuntime({ workerEntry: STREAM_HOST, dataDir, executablesDirs: [] });
    const stream = definition(
      [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 1000, amplitudes: [5], frequencies: [10], channels: 2 },
        },
        { id: 'tap', executable: 'tap', config: {} },
      ],
      [pipe('p1', 'gen', 'tap')],
    );
    const frames: Frame[] = [];
    const untap = runtime.tap(stream.id, 'tap', (frame) => frames.push(frame));
    await runtime.start(stream);
    await eventually(() => frames.length >= 10, 5000, 'tapped frames');
    await runtime.stop(stream.id);
    expect(frames.map((f) => f.seq).slice(0, 10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(frames[0]?.sampleRate).toBe(1000);
    expect(frames[0]?.data).toBeInstanceOf(Float32Array);
    for (const frame of frames) {
      expect(frame.channels).toHaveLength(2);
      expect(frame.data.length % 2).toBe(0);
      expect(frame.data.length).toBeGreaterThan(0);
    }
    // Both channels carry the same sine, at most 5 in magnitude.
    const all = frames.flatMap((f) => Array.from(f.data));
    expect(Math.max(...all.map(Math.abs))).toBeLessThanOrEqual(5.0001);
    expect(Math.max(...all)).toBeGreaterThan(4);

    const before = frames.length;
    await runtime.start(stream);
    await eventually(() => frames.length >= before + 3, 5000, 'frames after restart');
    // A second listener on the same tap shows frames still flow after the first is removed: the
    // removed one gets none of them (removal is immediate on the main thread).
    const others: Frame[] = [];
    const untapOther = runtime.tap(stream.id, 'tap', (frame) => others.push(frame));
    untap();
    const after = frames.length;
    await eventually(() => others.length >= 3, 5000, 'frames to the remaining listener');
    untapOther();
    expect(frames.length).toBe(after);
  });

  test('frames fed to an ingest node come out of its tap unchanged; feed is false when stopped', async () => {
    runtime = new WorkerRuntime({ workerEntry: STREAM_HOST, dataDir, executablesDirs: [] });
    const stream = definition(
      [
        { id: 'in', executable: 'ingest', config: {} },
        { id: 'tap', executable: 'tap', config: {} },
      ],
      [pipe('p1', 'in', 'tap')],
    );
    const out: Frame[] = [];
    runtime.tap(stream.id, 'tap', (frame) => out.push(frame));
    expect(runtime.feed(stream.id, 'in', frameOf(0, [[1, 2]]))).toBe(false);
    await runtime.start(stream);
    const sent = [
      frameOf(7, [
        [1, 2],
        [3, 4],
      ]),
      frameOf(8, [[5.5, -6]]),
      frameOf(9, [[7, 8]]),
    ];
    for (const frame of sent) expect(runtime.feed(stream.id, 'in', frame)).toBe(true);
    // The caller's frame is not transferred away.
    expect(sent[0]?.data.length).toBe(4);
    await eventually(() => out.length >= 3, 5000, 'ingested frames');
    expect(out.map((f) => Array.from(f.data))).toEqual([
      [1, 2, 3, 4],
      [5.5, -6],
      [7, 8],
    ]);
    // The stream numbers its own frames.
    expect(out.map((f) => f.seq)).toEqual([0, 1, 2]);
    expect(out[0]?.channels).toEqual(['Cz', 'O1']);
    expect(out[0]?.timestamp).toBe(sent[0]?.timestamp);
    await runtime.stop(stream.id);
    expect(runtime.feed(stream.id, 'in', frameOf(1, [[1, 2]]))).toBe(false);
  });
});
