/**
 * eeg-source across the thread boundary: the device lives on the main thread, frames reach the
 * stream's worker (copied, so the device's own frame stays intact for its other subscribers), a
 * different acquisition rate is converted, stopping unsubscribes, and no device is a clear error.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { Frame } from '../../src/core/frame.js';
import { ListenerSet } from '../../src/core/listener-set.js';
import type { DeviceFeed, OpenSubscription } from '../../src/core/node.js';
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

/** A device acquiring a 10 Hz sine of amplitude 100 µV on every channel, in 40 ms frames. */
class FakeDevice implements DeviceFeed {
  readonly requests: { channels: readonly string[]; sampleRate?: number }[] = [];
  readonly sent: Frame[] = [];
  subscribers = 0;
  private timer: NodeJS.Timeout | undefined;
  private index = 0;
  private readonly listeners = new ListenerSet<Frame>();

  constructor(private readonly rate: number) {}

  open(request: { channels: readonly string[]; sampleRate?: number }): Promise<OpenSubscription> {
    this.requests.push(request);
    this.subscribers++;
    this.timer ??= setInterval(() => {
      this.tick(request.channels);
    }, 40);
    let open = true;
    return Promise.resolve({
      channels: request.channels.length === 0 ? undefined : request.channels,
      close: () => {
        if (!open) return;
        open = false;
        this.subscribers--;
        if (this.subscribers === 0) {
          clearInterval(this.timer);
          this.timer = undefined;
        }
      },
    });
  }

  onFrame(listener: (frame: Frame) => void): () => void {
    return this.listeners.add(listener);
  }

  private tick(channels: readonly string[]): void {
    const samples = (this.rate * 40) / 1000;
    const data = new Float32Array(samples * channels.length);
    for (let i = 0; i < samples; i++) {
      const value = 100 * Math.sin((2 * Math.PI * 10 * (this.index + i)) / this.rate);
      for (let c = 0; c < channels.length; c++) data[i * channels.length + c] = value;
    }
    const frame: Frame = {
      seq: this.sent.length,
      timestamp: Date.now(),
      sampleRate: this.rate,
      channels: [...channels],
      data,
    };
    this.index += samples;
    this.sent.push(frame);
    this.listeners.emit(frame);
  }
}

function amplitude(x: number[], hz: number, rate: number): number {
  let s = 0;
  let c = 0;
  x.forEach((v, i) => {
    s += v * Math.sin((2 * Math.PI * hz * i) / rate);
    c += v * Math.cos((2 * Math.PI * hz * i) / rate);
  });
  return (2 * Math.hypot(s, c)) / x.length;
}

describe('eeg-source', () => {
  test('frames from the main thread device reach a websocket client; stop unsubscribes', async () => {
    const device = new FakeDevice(250);
    runtime = new WorkerRuntime({ workerEntry: STREAM_HOST, dataDir, executablesDirs: [], device });
    const stream = definition(
      [
        { id: 'eeg', executable: 'eeg-source', config: { channels: ['Cz', 'o1'] } },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
      ],
      [pipe('p1', 'eeg', 'ws')],
    );
    await runtime.start(stream);
    expect(device.requests).toEqual([{ channels: ['CZ', 'O1'] }]);
    const client = await FrameClient.connect(runtime.status(stream.id)!.nodes.ws!.info!.port as number);
    await eventually(() => client.frames.length >= 5, 5000, 'device frames');
    client.close();
    const first = client.frames[0]!.frame;
    expect(first.channels).toEqual(['CZ', 'O1']);
    expect(first.sampleRate).toBe(250);
    expect(first.data.length).toBe(10);
    // The device's frames were copied, not transferred away from it.
    expect(device.sent.every((f) => f.data.length === 20)).toBe(true);
    await runtime.stop(stream.id);
    expect(device.subscribers).toBe(0);
  });

  test('converts an acquisition running at another rate to the node rate', async () => {
    const device = new FakeDevice(1000);
    runtime = new WorkerRuntime({ workerEntry: STREAM_HOST, dataDir, executablesDirs: [], device });
    const stream = definition(
      [
        { id: 'eeg', executable: 'eeg-source', config: { channels: ['Pz'], samplingFrequency: 250 } },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
      ],
      [pipe('p1', 'eeg', 'ws')],
    );
    await runtime.start(stream);
    const client = await FrameClient.connect(runtime.status(stream.id)!.nodes.ws!.info!.port as number);
    await eventually(() => client.samples() >= 500, 10_000, 'two seconds at 250 Hz');
    client.close();
    expect(client.frames.every((r) => r.frame.sampleRate === 250)).toBe(true);
    // Past the resampler's start-up, the 10 Hz tone keeps its 100 µV amplitude.
    const x = client.frames.flatMap((r) => r.frame.data.map((row) => row[0]!)).slice(100, 350);
    expect(amplitude(x, 10, 250)).toBeGreaterThan(99);
    expect(amplitude(x, 10, 250)).toBeLessThan(101);
  });

  test('without a device the start fails with a clear message', async () => {
    runtime = new WorkerRuntime({ workerEntry: STREAM_HOST, dataDir, executablesDirs: [] });
    const stream = definition(
      [
        { id: 'eeg', executable: 'eeg-source' },
        { id: 'log', executable: 'logger' },
      ],
      [pipe('p1', 'eeg', 'log')],
    );
    await expect(runtime.start(stream)).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringMatching(/^node eeg: no EEG device is attached to this service/),
    });
  });
});
