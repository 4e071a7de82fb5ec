/**
 * The replay device end to end: each recording of the fixture directory replays through
 * eeg-source → websocket with the file's samples. The replay device lives on the main thread (on a
 * ManualClock, so the test decides how fast time runs), the stream runs in its worker, and a real
 * `ws` client reads the JSON frames: their samples equal the file's physical values (float32), in
 * order, across the loop of the 1-s file, with the loop flagged.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { channelName } from '../../src/core/electrodes.js';
import { headsetFrameSource } from '../../src/device/sources/frame-source.js';
import { createReplayHeadset, ManualClock, type ReplayHeadset } from '../../src/device/replay/index.js';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { definition, FrameClient, pipe, seqGaps } from '../runtime/helpers.js';
import { fixture } from '../formats/fixtures.js';
import { fileSignals } from '../support/file-signals.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

const dataDir = scratchDir('headsetd-replay-e2e');

let runtime: WorkerRuntime | undefined;
let headset: ReplayHeadset | undefined;
let client: FrameClient | undefined;

afterEach(async () => {
  client?.close();
  await runtime?.close();
  await headset?.close();
  client = undefined;
  runtime = undefined;
  headset = undefined;
});

/**
 * Moves device time by `ms` in 100-ms steps; after each, waits until the client holds every row the
 * device has emitted, so the test runs as fast as the pipeline allows and no client buffer overflows.
 */
async function play(
  clock: ManualClock,
  ms: number,
  emitted: () => number,
  received: FrameClient,
): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    clock.advance(Math.min(100, ms - t));
    const due = emitted();
    await eventually(() => received.samples() >= due, 10_000, `${due} rows at the client`);
  }
}

describe.each([
  { file: 'test_edf_stim_channel.edf', seconds: 1.5 },
  { file: 'test_bdf_stim_channel.bdf', seconds: 1.5 },
  { file: 'biosemi_test.bdf', seconds: 1.5 },
  { file: 'S002R01.edf', seconds: 1.5 },
])('$file through eeg-source → websocket', ({ file: name, seconds }) => {
  test("a websocket client receives the file's samples", async () => {
    const file = fixture(name);
    const clock = new ManualClock();
    headset = createReplayHeadset(file, { clock });
    const { sampleRate, samples } = headset.recording;
    const electrodes = headset.recording.channels.map((c) => c.electrode);
    runtime = new WorkerRuntime({
      workerEntry: STREAM_HOST,
      dataDir,
      executablesDirs: [],
      device: headsetFrameSource(headset),
    });
    const stream = definition(
      [
        { id: 'eeg', executable: 'eeg-source' },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
      ],
      [pipe('p1', 'eeg', 'ws', { policy: 'block' })],
    );
    await runtime.start(stream);
    expect(headset.eeg.state()).toMatchObject({ streaming: true, owners: ['streams'] });
    client = await FrameClient.connect(runtime.status(stream.id)!.nodes.ws!.info!.port as number);
    let emitted = 0;
    headset.eeg.onFrame((frame) => {
      emitted += frame.data.length / frame.channels.length;
    });

    const received = client;
    await play(clock, seconds * 1000, () => emitted, received);
    await runtime.stop(stream.id);
    expect(headset.eeg.state().streaming).toBe(false);

    const frames = received.frames.map((r) => r.frame);
    expect(seqGaps(frames.map((f) => f.seq))).toEqual([]);
    const expected = fileSignals(file);
    let row = 0;
    const flagged: number[] = [];
    for (const frame of frames) {
      expect(frame.channels).toEqual(electrodes.map(channelName));
      expect(frame.sampleRate).toBe(sampleRate);
      if (frame.discontinuity === true) flagged.push(row);
      for (const values of frame.data) {
        const index = row % samples;
        electrodes.forEach((electrode, c) => {
          const want = Math.fround(expected.get(electrode)![index]!);
          if (Math.fround(values[c]!) !== want) {
            throw new Error(`${electrode} sample ${row}: received ${values[c]}, the file has ${want}`);
          }
        });
        row++;
      }
    }
    // Every row the device emitted in the time played (whole ~10-ms frames), in order.
    expect(row).toBe(emitted);
    expect(row).toBeGreaterThan(seconds * sampleRate - 0.011 * sampleRate);
    // The stream's first frame, and the loop's restart where the file is shorter than the run.
    const rowsPerFrame = frames[0]!.data.length;
    const loop = Math.floor(samples / rowsPerFrame) * rowsPerFrame;
    expect(flagged).toEqual(loop < row ? [0, loop] : [0]);
  });
});
