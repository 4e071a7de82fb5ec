/**
 * The live headset end to end: a fake amplifier's blocks (pushed by hand, of sizes that never line
 * up with the 3-row frames of 250 Hz) go through eeg-source → websocket in a stream's worker, and
 * a real `ws` client receives exactly the amplifier's values, in order, each frame stamped with
 * its first row's time; rows lost on the way are not filled in, and the frame after them says
 * discontinuity.
 */
import { afterEach, expect, test } from 'vitest';
import { type LiveHeadset, openLiveHeadset } from '../../src/device/live/live-headset.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { headsetFrameSource } from '../../src/device/sources/frame-source.js';
import { definition, FrameClient, pipe } from '../runtime/helpers.js';
import { FakeLiveDriver, sampleValue } from '../support/fake-live-driver.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

const dataDir = scratchDir('headsetd-live-e2e');
let runtime: WorkerRuntime | undefined;
let headset: LiveHeadset | undefined;
let client: FrameClient | undefined;

afterEach(async () => {
  client?.close();
  await runtime?.close();
  await headset?.close();
  client = undefined;
  runtime = undefined;
  headset = undefined;
});

test("a websocket client receives the amplifier's exact values; lost rows are marked, not filled", async () => {
  const driver = new FakeLiveDriver();
  headset = await openLiveHeadset(driver);
  await headset.eeg.configure({ channels: ['Fp1', 'Cz', 'O2'] });
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
  client = await FrameClient.connect(runtime.status(stream.id)?.nodes.ws?.info?.port as number);
  const received = client;

  // 2 + 7 + 1 rows, then 5 rows lost, then 4 + 6 + 2 rows: 10 rows before the loss, 12 after.
  const sent: number[] = [];
  let next = 0;
  const push = (rows: number): void => {
    driver.push(rows);
    for (let n = next; n < next + rows; n++) sent.push(n);
    next += rows;
  };
  for (const rows of [2, 7, 1]) push(rows);
  driver.lose(5);
  next += 5;
  for (const rows of [4, 6, 2]) push(rows);
  await eventually(() => received.samples() >= sent.length, 10_000, `${sent.length} rows at the client`);
  await runtime.stop(stream.id);

  const frames = received.frames.map((r) => r.frame);
  const columns = ['Fp1', 'Cz', 'O2'].map((e) => driver.channels().findIndex((c) => c.name === e));
  const rows = frames.flatMap((f) => f.data);
  expect(rows).toEqual(sent.map((n) => columns.map((c) => sampleValue(n, c))));
  expect(frames.map((f) => f.data.length)).toEqual([3, 3, 3, 1, 3, 3, 3, 3]);
  expect(frames.map((f) => f.discontinuity === true)).toEqual([
    true,
    false,
    false,
    false,
    true,
    false,
    false,
    false,
  ]);
  expect(frames.map((f) => f.timestamp)).toEqual([0, 3, 6, 9, 15, 18, 21, 24].map((n) => driver.rowTime(n)));
  expect(frames.every((f) => f.sampleRate === 250 && f.channels.join() === 'Fp1,Cz,O2')).toBe(true);
});
