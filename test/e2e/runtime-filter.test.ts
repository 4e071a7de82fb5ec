/**
 * generator → filter → websocket through a real worker and a real client: the band-pass keeps the
 * in-band tone and removes the out-of-band one (docs/api.md §Built-in executables); a design impossible at the
 * incoming rate leaves the filter in error with the design's message, without restarts.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { definition, FrameClient, pipe } from '../runtime/helpers.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

const dataDir = scratchDir('headsetd-runtime');
let runtime: WorkerRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

/** Amplitude of the `hz` component of `x` (sampled at `rate`), by projection on sin and cos. */
function toneAmplitude(x: number[], hz: number, rate: number): number {
  let s = 0;
  let c = 0;
  x.forEach((v, i) => {
    s += v * Math.sin((2 * Math.PI * hz * i) / rate);
    c += v * Math.cos((2 * Math.PI * hz * i) / rate);
  });
  return (2 * Math.hypot(s, c)) / x.length;
}

const dB = (ratio: number) => 20 * Math.log10(ratio);

describe('filter in a running stream', () => {
  test('a 1–20 Hz band-pass at 250 Hz keeps 5 Hz within 1 dB and attenuates 50 Hz by at least 30 dB', async () => {
    runtime = new WorkerRuntime({ workerEntry: STREAM_HOST, dataDir, executablesDirs: [] });
    const rate = 250;
    const stream = definition(
      [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: rate, amplitudes: [1, 1], frequencies: [5, 50] },
        },
        { id: 'bp', executable: 'filter', config: { highpass: 1, lowpass: 20, order: 4 } },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
      ],
      [pipe('p1', 'gen', 'bp'), pipe('p2', 'bp', 'ws')],
    );
    await runtime.start(stream);
    const client = await FrameClient.connect(runtime.status(stream.id)!.nodes.ws!.info!.port as number);
    // 1.5 s for the filter to settle, then 4 s: a whole number of cycles of both tones.
    const settle = 1.5 * rate;
    const span = 4 * rate;
    await eventually(() => client.samples() >= settle + span, 15_000, 'six seconds of samples');
    client.close();
    const samples = client.frames.flatMap((r) => r.frame.data.map((row) => row[0]!));
    const window = samples.slice(settle, settle + span);

    expect(Math.abs(dB(toneAmplitude(window, 5, rate)))).toBeLessThan(1);
    expect(dB(toneAmplitude(window, 50, rate))).toBeLessThan(-30);
    expect(runtime.logs(stream.id, 'bp').some((l) => l.line.includes('designed for 250 Hz'))).toBe(true);
    expect(runtime.status(stream.id)!.nodes.ws!.metrics.latency?.p2).toBeDefined();
  });

  test('a design impossible at the incoming rate puts the node in error with the reason, not restarted', async () => {
    runtime = new WorkerRuntime({ workerEntry: STREAM_HOST, dataDir, executablesDirs: [] });
    const stream = definition(
      [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 250, amplitudes: [1], frequencies: [5] },
        },
        { id: 'lp', executable: 'filter', config: { lowpass: 200 } },
        { id: 'log', executable: 'logger' },
      ],
      [pipe('p1', 'gen', 'lp'), pipe('p2', 'lp', 'log')],
    );
    await runtime.start(stream);
    const status = await eventually(
      () => {
        const s = runtime?.status(stream.id);
        return s?.nodes.lp?.state === 'error' ? s : undefined;
      },
      5000,
      'the filter in error',
    );
    expect(status.nodes.lp!.metrics.lastError).toMatch(
      /lowpass 200 Hz is at or above the Nyquist frequency 125 Hz/,
    );
    expect(status.nodes.lp!.metrics.restarts).toBe(0);
    expect(status.nodes.gen!.state).toBe('running');
  });
});
