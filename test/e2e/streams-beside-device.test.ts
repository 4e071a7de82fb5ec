/**
 * Streams that read the device run in the device's own thread (streams/runtime/worker-pool.ts),
 * as the service runs them: the device's thread from its built entry, the runtime beside it. The
 * same stream placed there and in a worker (the two places a stream runs) gives a websocket
 * client the replayed file's samples, in order and unaltered; a stream that does not read the
 * device, and every stream of a runtime that loads modules of extra executables (code that would
 * run in the device's thread), runs in a worker; a host whose thread ends under it fails its
 * streams with the reason.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { channelName } from '../../src/core/electrodes.js';
import type { StreamDefinition } from '../../src/core/stream-model.js';
import { headsetFrameSource } from '../../src/device/sources/frame-source.js';
import { createReplayHeadset, type ReplayHeadset } from '../../src/device/replay/index.js';
import { readsDevice } from '../../src/streams/eeg-readers.js';
import type { RuntimeEvent } from '../../src/streams/runtime/stream-runtime.js';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { DEVICE_THREAD, STREAM_HOST, TEST_NODES_MODULE } from '../support/stream-host.js';
import { definition, FrameClient, pipe, seqGaps } from '../runtime/helpers.js';
import { fixture } from '../formats/fixtures.js';
import { fileSignals } from '../support/file-signals.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

const dataDir = scratchDir('headsetd-beside-device');
const FILE = fixture('S002R01.edf');

let runtime: WorkerRuntime | undefined;
let headset: ReplayHeadset | undefined;
const clients: FrameClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await runtime?.close();
  await headset?.close();
  runtime = undefined;
  headset = undefined;
});

/** A replay headset producing in its own thread, and a runtime that may place streams there. */
function setUp(options: { besideDevice: boolean; extraModules?: string[] }): {
  headset: ReplayHeadset;
  runtime: WorkerRuntime;
} {
  headset = createReplayHeadset(FILE, { deviceThread: DEVICE_THREAD });
  const device = headset;
  runtime = new WorkerRuntime({
    workerEntry: STREAM_HOST,
    dataDir,
    executablesDirs: [],
    device: headsetFrameSource(device),
    ...(options.besideDevice ? { deviceThread: () => device.eeg.streamThread() } : {}),
    readsDevice,
    ...(options.extraModules === undefined ? {} : { extraExecutableModules: options.extraModules }),
    // A threshold no thread reaches: the placement by what a stream reads is what is tested here,
    // not the spreading by load (runtime-pool.test.ts), which a busy machine's readings of the
    // device's thread would otherwise bring in.
    spreadAtUtilization: 1.01,
  });
  return { headset, runtime };
}

function eegToWebsocket(): StreamDefinition {
  return definition(
    [
      { id: 'eeg', executable: 'eeg-source' },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
    ],
    [pipe('p1', 'eeg', 'ws', { policy: 'block' })],
  );
}

async function connect(stream: StreamDefinition): Promise<FrameClient> {
  const client = await FrameClient.connect(runtime!.status(stream.id)!.nodes.ws!.info!.port as number);
  clients.push(client);
  return client;
}

describe.each([
  { place: 'the device’s thread', besideDevice: true },
  { place: 'a worker', besideDevice: false },
])('a stream that reads the device, run in $place', ({ place, besideDevice }) => {
  test('gives a websocket client the file’s samples, in order and unaltered', async () => {
    const { headset, runtime } = setUp({ besideDevice });
    const stream = eegToWebsocket();
    await runtime.start(stream);
    expect({ beside: runtime.besideDeviceLoad(), workers: runtime.workerLoads() }).toEqual(
      place === 'a worker' ? { beside: 0, workers: [1] } : { beside: 1, workers: [] },
    );
    const client = await connect(stream);
    const { sampleRate, samples } = headset.recording;
    // Half a second of the file, and across no loop (the file is a minute long).
    await eventually(() => client.samples() >= sampleRate / 2, 60_000, 'half a second at the client');
    await runtime.stop(stream.id);

    const frames = client.frames.map((r) => r.frame);
    expect(seqGaps(frames.map((f) => f.seq))).toEqual([]);
    const electrodes = headset.recording.channels.map((c) => c.electrode);
    const expected = electrodes.map((electrode) => fileSignals(FILE).get(electrode)!);
    const rows = frames.flatMap((frame) => {
      expect(frame.channels).toEqual(electrodes.map(channelName));
      expect(frame.sampleRate).toBe(sampleRate);
      return frame.data;
    });
    // The client joined a running stream: its first row is found in the file (whole rows of 64
    // channels do not repeat), and every row after it is the file's next one, as float32.
    const same = (row: readonly number[], index: number): boolean =>
      row.every((value, c) => Math.fround(value) === Math.fround(expected[c]![index % samples]!));
    const start = Array.from({ length: samples }, (_, i) => i).filter((i) => same(rows[0]!, i));
    expect(start).toHaveLength(1);
    const unlike = rows.findIndex((row, r) => !same(row, start[0]! + r));
    expect(unlike).toBe(-1);
  });
});

describe('where the runtime places a stream', () => {
  test('the streams that read the device share its thread; a stream that does not runs in a worker', async () => {
    const { runtime } = setUp({ besideDevice: true });
    const first = eegToWebsocket();
    const second = eegToWebsocket();
    const generator = definition(
      [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 250, amplitudes: [1], frequencies: [10] },
        },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
      ],
      [pipe('p1', 'gen', 'ws')],
    );
    for (const stream of [first, second, generator]) await runtime.start(stream);
    expect(runtime.besideDeviceLoad()).toBe(2);
    expect(runtime.workerLoads()).toEqual([1]);
    // Both readers of the device get its frames.
    const clients = await Promise.all([connect(first), connect(second)]);
    await eventually(() => clients.every((c) => c.frames.length >= 10), 60_000, '10 frames at each client');
    // A stopped stream leaves the device's thread; the next reader is placed there again.
    await runtime.stop(first.id);
    expect(runtime.besideDeviceLoad()).toBe(1);
    await runtime.start(first);
    expect(runtime.besideDeviceLoad()).toBe(2);
  });

  test('a runtime that loads modules of extra executables runs every stream in a worker', async () => {
    const { runtime } = setUp({ besideDevice: true, extraModules: [TEST_NODES_MODULE] });
    const stream = eegToWebsocket();
    await runtime.start(stream);
    expect(runtime.besideDeviceLoad()).toBe(0);
    expect(runtime.workerLoads()).toEqual([1]);
    const client = await connect(stream);
    await eventually(() => client.frames.length >= 10, 60_000, '10 frames at the client');
  });

  test('a device’s thread that ends under its streams fails them with the reason', async () => {
    const { headset, runtime } = setUp({ besideDevice: true });
    const events: RuntimeEvent[] = [];
    runtime.onEvent((event) => events.push(event));
    const stream = eegToWebsocket();
    await runtime.start(stream);
    const client = await connect(stream);
    await eventually(() => client.frames.length >= 5, 60_000, '5 frames at the client');
    await headset.close();
    await eventually(
      () => events.some((e) => e.type === 'stream_failed'),
      20_000,
      'the stream failed with the device’s thread',
    );
    const failed = events.find((e) => e.type === 'stream_failed');
    expect(failed?.message).toMatch(/^stream .* failed: the device was closed$/);
    expect(runtime.status(stream.id)).toBeUndefined();
  });
});
