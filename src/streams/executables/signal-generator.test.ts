/** The signal generator in-process: paced by the clock without drift, values, names, seeded noise. */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createSignalGenerator } from './signal-generator.js';
import type { Frame } from '../../core/frame.js';
import type { NodeContext } from '../../core/node.js';

function run(config: Record<string, unknown>) {
  const frames: Frame[] = [];
  /** When each frame was emitted, on the clock its timestamps are on (faked by the tests). */
  const emittedAt: number[] = [];
  const context: NodeContext = {
    streamId: 's',
    nodeId: 'gen',
    config,
    dataDir: '/tmp',
    emit: (_port, frame) => {
      frames.push(frame);
      emittedAt.push(performance.timeOrigin + performance.now());
    },
    log: () => undefined,
    fail: (error) => {
      throw error;
    },
    setInfo: () => undefined,
    countDropped: () => undefined,
    trackProcessGroup: () => undefined,
    untrackProcessGroup: () => undefined,
  };
  return { node: createSignalGenerator(context), frames, emittedAt, context };
}

const samples = (frames: Frame[]) => frames.reduce((n, f) => n + f.data.length / f.channels.length, 0);

describe('signal-generator', () => {
  // Time is moved by the tests (vi.advanceTimersByTime): nothing waits for real time.
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance', 'Date'],
    });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('emits exactly the samples due on the clock in ~10 ms frames, however late its timers fire', async () => {
    const { node, frames } = run({ sampleRate: 1000, amplitudes: [1], frequencies: [10] });
    await node.start();
    // 10 s in irregular steps: timers fire late by up to 37 ms, as on a busy thread.
    let elapsed = 0;
    const steps = [3, 11, 37, 1, 10, 25, 9, 14];
    for (let i = 0; elapsed < 10_000; i++) {
      const step = steps[i % steps.length]!;
      vi.advanceTimersByTime(step);
      elapsed += step;
    }
    await node.stop();
    // No drift: every sample of every frame complete by now, and not one more. Sample k is due at
    // k ms (1 kHz), and a 10-sample frame leaves when its last sample is due.
    expect(samples(frames)).toBe(Math.floor((Math.floor(elapsed) + 1) / 10) * 10);
    expect(frames.every((f) => f.data.length >= 1 && f.data.length <= 10)).toBe(true);
    // Timestamps follow the sample count exactly.
    const first = frames[0]!;
    let count = 0;
    for (const f of frames) {
      expect(f.timestamp).toBeCloseTo(first.timestamp + count, 6);
      count += f.data.length;
    }
  });

  test('never emits a frame before its last sample is due, on the clock of its own time stamps', async () => {
    // A frame that left early would hold samples of the future: a client reading it could not be
    // behind the source. Load only delays a frame downstream, so this is the source's property,
    // shown here on the faked clock at the instant of each emit (no reading of the real one).
    const { node, frames, emittedAt } = run({ sampleRate: 250, amplitudes: [1], frequencies: [10] });
    await node.start();
    const steps = [1, 3, 2, 7, 4, 1, 1, 13, 5];
    for (let i = 0, elapsed = 0; elapsed < 3000; i++) {
      const step = steps[i % steps.length]!;
      vi.advanceTimersByTime(step);
      elapsed += step;
    }
    await node.stop();
    expect(frames.length).toBeGreaterThan(200);
    const early = frames.flatMap((f, i) => {
      const lastDue = f.timestamp + ((f.data.length / f.channels.length - 1) * 1000) / f.sampleRate;
      const at = emittedAt[i]!;
      return at < lastDue - 1e-6 ? [`frame ${i} emitted ${(lastDue - at).toFixed(3)} ms early`] : [];
    });
    expect(early).toEqual([]);
  });

  test('every channel carries the sum of the sines; names default to ch1..chN', async () => {
    const { node, frames } = run({
      sampleRate: 100,
      amplitudes: [2, 1],
      frequencies: [25, 12.5],
      channels: 3,
    });
    await node.start();
    vi.advanceTimersByTime(80);
    await node.stop();
    expect(frames[0]!.channels).toEqual(['ch1', 'ch2', 'ch3']);
    const data = frames.flatMap((f) => Array.from(f.data)).slice(0, 12);
    // t = 0, 10, 20, 30 ms: 2·sin(2π·25·t) + sin(2π·12.5·t) → 0, 2 + √½, 1, −2 + √½
    const expected = [0, 2 + Math.SQRT1_2, 1, -2 + Math.SQRT1_2].flatMap((v) => [v, v, v]);
    expect(data).toEqual(expected.map((v) => expect.closeTo(v, 5)));
  });

  test('noise is independent per channel and repeatable with a seed; channelNames are used', async () => {
    const config = {
      sampleRate: 1000,
      amplitudes: [0],
      frequencies: [1],
      channels: 2,
      noise: 1,
      seed: 7,
      channelNames: ['a', 'b'],
    };
    const one = run(config);
    const two = run(config);
    await Promise.all([one.node.start(), two.node.start()]);
    vi.advanceTimersByTime(100);
    await Promise.all([one.node.stop(), two.node.stop()]);
    expect(one.frames[0]!.channels).toEqual(['a', 'b']);
    // Frames may split differently with timing; the sample sequence is what the seed fixes.
    const a = one.frames.flatMap((f) => Array.from(f.data));
    const b = two.frames.flatMap((f) => Array.from(f.data));
    const common = Math.min(a.length, b.length);
    expect(common).toBeGreaterThan(100);
    expect(a.slice(0, common)).toEqual(b.slice(0, common));
    expect(a[0]).not.toBe(a[1]);
  });

  test('pause stops emitting; resume starts a new epoch', async () => {
    const { node, frames } = run({ sampleRate: 1000, amplitudes: [1], frequencies: [10] });
    await node.start();
    vi.advanceTimersByTime(50);
    node.pause?.();
    const count = frames.length;
    vi.advanceTimersByTime(100);
    expect(frames.length).toBe(count);
    node.resume?.();
    vi.advanceTimersByTime(50);
    await node.stop();
    expect(frames.length).toBeGreaterThan(count);
    expect(frames[count]!.timestamp - frames[count - 1]!.timestamp).toBeGreaterThan(90);
  });

  test("stamps its samples at the instants it paces them, from one reading of the clock (a thread's first wall-clock reading came 0.13 ms after the pacing one, and every frame was stamped that late)", async () => {
    // A wall clock whose every new reading comes late, as a thread's first one does (it measures
    // the clock's constant first) or one after a preemption: stamps must not take a second one.
    const WALL_MINUS_PERFORMANCE = 1_700_000_000_000;
    vi.resetModules();
    vi.doMock('../../core/wall-clock.js', () => ({
      wallNowMs: () => performance.now() + WALL_MINUS_PERFORMANCE + 0.5,
      wallAtMs: (performanceMs: number) => performanceMs + WALL_MINUS_PERFORMANCE,
    }));
    try {
      const { createSignalGenerator: generator } = await import('./signal-generator.js');
      const frames: Frame[] = [];
      const start = performance.now();
      const node = generator({
        ...run({ sampleRate: 1000, amplitudes: [1], frequencies: [10] }).context,
        config: { sampleRate: 1000, amplitudes: [1], frequencies: [10] },
        emit: (_port, frame) => frames.push(frame),
      });
      await node.start();
      vi.advanceTimersByTime(30);
      await node.stop();
      expect(frames.length).toBe(3);
      // Sample k is due k ms after the start (1 kHz), and stamped so.
      expect(frames.map((f) => f.timestamp - WALL_MINUS_PERFORMANCE - start)).toEqual([0, 10, 20]);
    } finally {
      vi.doUnmock('../../core/wall-clock.js');
      vi.resetModules();
    }
  });
});
