/**
 * An LSL device read in the device's thread (the built thread, as the service runs it), against a
 * liblsl 1.12 outlet: the frames reach a stream worker's port, and the main thread only while a
 * listener there wants them; the driver's state is known here synchronously; and a thread that
 * dies takes the device with it, said as such: the link lost, the run ended as a failure, every
 * later start refused as device_unavailable.
 */
import type { Worker } from 'node:worker_threads';
import { afterEach, expect, test } from 'vitest';
import { DeviceFrameReader, type DeviceFrameMessage, isDeviceFrameMessage } from '../../core/frame-wire.js';
import { liblslEnv, liblslOf, LslTool, pacedOutletArgs, skipWithout } from '../../../test/support/liblsl.js';
import { DEVICE_THREAD } from '../../../test/support/stream-host.js';
import { eventually } from '../../../test/support/wait.js';
import type { SystemEvent } from '../events.js';
import { type LiveHeadset, openLiveHeadset } from '../live/live-headset.js';
import { ThreadLiveDriver } from './live-thread-driver.js';

const PORTS = { multicastPort: 38611, basePort: 38612, portRange: 16 };
const NETWORK = {
  interfaces: [],
  sessionId: 'default',
  knownPeers: [],
  ...PORTS,
};

const opened: { tools: LslTool[]; headsets: LiveHeadset[] } = { tools: [], headsets: [] };

afterEach(async () => {
  await Promise.all(opened.headsets.splice(0).map((h) => h.close()));
  for (const tool of opened.tools.splice(0)) tool.kill();
});

test('an LSL device in its thread: frames on the port, none here without a listener; a thread that dies loses the device, said so', async (context) => {
  skipWithout('1.12', context);
  const { lib, tool } = await liblslOf('1.12');
  const name = 'Thread Driver EEG';
  const outlet = new LslTool(
    tool,
    pacedOutletArgs(lib, {
      name,
      source: 'thread-driver',
      channels: 2,
      rate: 250,
      count: 250 * 120,
      chunk: 5,
      stamps: 'push',
      labels: 'Fp1,O2',
    }),
    liblslEnv(PORTS),
    true,
  );
  opened.tools.push(outlet);
  await outlet.waitFor('READY');
  outlet.send('go');

  const logs: string[] = [];
  const driver = new ThreadLiveDriver(
    DEVICE_THREAD,
    { kind: 'live', device: 'lsl', argument: `name=${name}`, lsl: NETWORK },
    (message) => logs.push(message),
  );
  const headset = await openLiveHeadset(driver, { runs: (hooks) => driver.runs(hooks) });
  opened.headsets.push(headset);
  // What the main thread reads synchronously came with the open.
  expect(headset.eeg.channels().map((c) => c.name)).toEqual(['Fp1', 'O2']);
  expect(headset.eeg.config().samplingFrequency).toBe(250);
  expect(headset.info().model).toBe(`LSL EEG stream '${name}'`);
  expect(logs.some((line) => line.startsWith('playing '))).toBe(true);
  const events: SystemEvent[] = [];
  headset.onEvent((event) => {
    if (event.type === 'system') events.push(event);
  });

  let here = 0;
  const received = (driver as unknown as { thread: { receive(m: ArrayBuffer | { kind: string }): void } })
    .thread;
  const receive = received.receive.bind(received);
  received.receive = (message) => {
    if (isDeviceFrameMessage(message)) here++;
    receive(message);
  };
  const port = headset.eeg.framePort();
  let rows = 0;
  const reader = new DeviceFrameReader();
  port.port.on('message', (message: DeviceFrameMessage) => {
    rows += reader.read(message).data.length / 2;
  });
  await headset.eeg.start('client');
  await eventually(() => rows >= 250, 30_000, 'a second of samples on the port');
  expect(here).toBe(0);
  expect(headset.eeg.state().samples).toBeGreaterThan(0);

  // The thread dies (as out of memory would end it).
  await (driver as unknown as { thread: { worker: Worker } }).thread.worker.terminate();
  await eventually(
    () => events.some((e) => e.eventType === 'acquisition_stopped'),
    10_000,
    'the acquisition stopped',
  );
  expect(events.find((e) => e.eventType === 'device_lost')?.message).toMatch(/the device's thread ended/);
  expect(events.find((e) => e.eventType === 'acquisition_stopped')).toMatchObject({
    level: 'error',
    message: expect.stringMatching(
      /^EEG acquisition failed and stopped after \d+ samples: the device's thread ended/,
    ),
  });
  expect(headset.eeg.state()).toMatchObject({ streaming: false, owners: [] });
  await expect(headset.eeg.start('client')).rejects.toMatchObject({ code: 'device_unavailable' });
  port.close();
});
