/**
 * The device's frames produced in its own thread, as the service produces them: the same frames as
 * produced on the acquisition's thread, sample for sample; the thread follows what the main thread
 * changes (the motors); the main thread receives no frame unless a listener there wants them; and
 * the count the acquisition reports is the thread's.
 */
import { copyFileSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Frame } from '../../core/frame.js';
import { DeviceFrameReader, type DeviceFrameMessage, isDeviceFrameMessage } from '../../core/frame-wire.js';
import type { Headset } from '../headset.js';
import { createReplayHeadset } from '../replay/index.js';
import { createSimulatedHeadset } from '../simulated/index.js';
import { DEVICE_THREAD } from '../../../test/support/stream-host.js';
import { fixture } from '../../../test/formats/fixtures.js';
import { DeviceThread } from './device-thread.js';
import { scratchDir } from '../../../test/support/scratch.js';

const opened: Headset[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((h) => h.close()));
  vi.restoreAllMocks();
});

function keep<H extends Headset>(headset: H): H {
  opened.push(headset);
  return headset;
}

/** Reads the device's frames as a stream's worker does: from a frame port. */
function readPort(headset: Headset) {
  const framePort = headset.eeg.framePort();
  const frames: Frame[] = [];
  const reader = new DeviceFrameReader();
  const waiters: { count: number; resolve: () => void }[] = [];
  framePort.port.on('message', (message: DeviceFrameMessage) => {
    frames.push(reader.read(message));
    for (const waiter of waiters.splice(0)) {
      if (frames.length >= waiter.count) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  return {
    frames,
    /** Resolves once `count` frames came. */
    atLeast: (count: number) =>
      frames.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            waiters.push({ count, resolve });
          }),
    close: () => {
      framePort.close();
    },
  };
}

/** The first `count` frames of a run of `headset`, read from a frame port. */
async function firstFrames(headset: Headset, count: number): Promise<Frame[]> {
  const reader = readPort(headset);
  await headset.eeg.start('client');
  await reader.atLeast(count);
  await headset.eeg.stop('client');
  reader.close();
  return reader.frames.slice(0, count);
}

/** What of a frame must be the same wherever it was produced (not its times). */
function content(frame: Frame) {
  return {
    seq: frame.seq,
    channels: [...frame.channels],
    sampleRate: frame.sampleRate,
    discontinuity: frame.discontinuity === true,
    range: frame.range,
    data: Array.from(frame.data),
  };
}

describe('frames produced in the device’s thread', () => {
  it('are the simulated headset’s frames produced on its own thread, sample for sample', async () => {
    // Electrodes retracted: the impedance is the air's, the same whenever it is read, so the
    // samples depend on the seed alone.
    const here = keep(createSimulatedHeadset({ seed: 7 }));
    const there = keep(createSimulatedHeadset({ seed: 7, deviceThread: DEVICE_THREAD }));
    const [mine, theirs] = await Promise.all([firstFrames(here, 40), firstFrames(there, 40)]);
    expect(theirs.map(content)).toEqual(mine.map(content));
  });

  it('are the replay device’s frames produced on its own thread, sample for sample', async () => {
    const here = keep(createReplayHeadset(fixture('S002R01.edf')));
    const there = keep(createReplayHeadset(fixture('S002R01.edf'), { deviceThread: DEVICE_THREAD }));
    const [mine, theirs] = await Promise.all([firstFrames(here, 40), firstFrames(there, 40)]);
    expect(theirs.map(content)).toEqual(mine.map(content));
  });

  it('follow the motors: an electrode lifted off the scalp shows the floating input’s mains', async () => {
    const headset = keep(
      createSimulatedHeadset({ seed: 3, initialMotorPosition: 'scalp', deviceThread: DEVICE_THREAD }),
    );
    await headset.eeg.configure({ channels: ['O1'] });
    const reader = readPort(headset);
    await headset.eeg.start('client');
    await reader.atLeast(25);
    const rms = (frames: readonly Frame[]) =>
      Math.sqrt(
        frames.reduce((sum, f) => sum + f.data.reduce((s, v) => s + v * v, 0), 0) /
          frames.reduce((n, f) => n + f.data.length, 0),
      );
    const pressed = rms(reader.frames.slice(0, 25));
    // 20 steps back from 15 past contact: 5 steps off the scalp, about 2.75 MΩ.
    await headset.motors.move([{ electrode: 'O1', movement: 'RETRACT', displacement: 20 }]);
    await headset.motors.waitUntilComplete(['O1']);
    const from = reader.frames.length;
    await reader.atLeast(from + 25);
    const lifted = rms(reader.frames.slice(from, from + 25));
    reader.close();
    expect(pressed).toBeLessThan(100);
    expect(lifted).toBeGreaterThan(4 * pressed);
  });

  it('reach the main thread only while a listener there wants them; the count is the thread’s', async () => {
    const headset = keep(createSimulatedHeadset({ seed: 2, deviceThread: DEVICE_THREAD }));
    const received = vi.spyOn(
      DeviceThread.prototype as unknown as { receive(m: { kind: string }): void },
      'receive',
    );
    const framesToMain = () => received.mock.calls.filter(([m]) => isDeviceFrameMessage(m)).length;
    const reader = readPort(headset);
    await headset.eeg.start('client');
    await reader.atLeast(20);
    expect(framesToMain()).toBe(0);
    const heard: Frame[] = [];
    const unsubscribe = headset.eeg.onFrame((frame) => heard.push(frame));
    const from = reader.frames.length;
    await reader.atLeast(from + 20);
    await vi.waitFor(
      () => {
        expect(heard.length).toBeGreaterThan(5);
      },
      { timeout: 20_000 },
    );
    // What the main thread heard is what the port carried, frame for frame.
    const first = heard[0] as Frame;
    const same = reader.frames.find((f) => f.seq === first.seq) as Frame;
    expect(content(first)).toEqual(content(same));
    unsubscribe();
    // What was already on its way when the listener left may still arrive (two ports of one
    // thread keep no order between them); then a window of 20 of the port's frames comes with
    // none to the main thread. Were the main thread still sent frames, no window would be empty.
    await vi.waitFor(
      async () => {
        const before = framesToMain();
        await reader.atLeast(reader.frames.length + 20);
        expect(framesToMain()).toBe(before);
      },
      { timeout: 20_000 },
    );
    const state = await headset.eeg.stop('client');
    expect(state.streaming).toBe(false);
    // Every row the port carried is counted, and nothing else (the port's last frames may still be
    // on their way when the stop answers).
    const rows = () => reader.frames.reduce((n, f) => n + f.data.length / f.channels.length, 0);
    await vi.waitFor(
      () => {
        expect(rows()).toBe(state.samples);
      },
      { timeout: 20_000 },
    );
    reader.close();
  });

  it('a device closed while acquiring lets its thread write the run’s last frames first', async () => {
    const headset = createSimulatedHeadset({ seed: 4, deviceThread: DEVICE_THREAD });
    const framePort = headset.eeg.framePort();
    let rows = 0;
    const reader = new DeviceFrameReader();
    framePort.port.on('message', (message: DeviceFrameMessage) => {
      rows += reader.read(message).data.length / 19;
    });
    const portClosed = new Promise((resolve) => framePort.port.once('close', resolve));
    const stopped = new Promise<string>((resolve) =>
      headset.onEvent((event) => {
        if (event.type === 'system' && event.eventType === 'acquisition_stopped') resolve(event.message);
      }),
    );
    await headset.eeg.start('client');
    await vi.waitFor(
      () => {
        expect(rows).toBeGreaterThan(30);
      },
      { timeout: 20_000 },
    );
    await headset.close();
    const message = await stopped;
    await portClosed;
    // The count the stop reports is every row the port carried, the last ones included.
    expect(message).toBe(`EEG acquisition stopped after ${rows} samples.`);
  });

  it('a host of streams in the thread that is killed ends the run, said in the stop; the next run starts a new thread', async () => {
    const headset = keep(createSimulatedHeadset({ seed: 5, deviceThread: DEVICE_THREAD }));
    const stops: string[] = [];
    headset.onEvent((event) => {
      if (event.type === 'system' && event.eventType === 'acquisition_stopped') stops.push(event.message);
    });
    const first = readPort(headset);
    await headset.eeg.start('client');
    await first.atLeast(5);
    const thread = headset.eeg.streamThread();
    if (thread === undefined) throw new Error('a device producing in its own thread hosts streams there');
    const busy = new SharedArrayBuffer(8);
    const { port1, port2 } = new MessageChannel();
    const hosted = thread.openHost(port2, {
      busy,
      snapshotIntervalMs: 20,
      hasDevice: true,
      wallClockOffsetMs: 0,
    });
    const told: string[] = [];
    hosted.onEnd((reason) => told.push(reason));
    // The host runs in the thread: its heartbeat counts.
    await vi.waitFor(
      () => {
        expect(Atomics.load(new Int32Array(busy), 1)).toBeGreaterThan(3);
      },
      { timeout: 20_000 },
    );
    port1.close();
    await hosted.end(true);
    await vi.waitFor(
      () => {
        expect(stops).toHaveLength(1);
      },
      { timeout: 20_000 },
    );
    expect(stops[0]).toMatch(
      /^EEG acquisition failed and stopped after \d+ samples: .*the device's thread was ended: a stream running in it stopped responding/,
    );
    // Its own end is not told back to the line that asked for it.
    expect(told).toEqual([]);
    first.close();
    const second = readPort(headset);
    await headset.eeg.start('client');
    await second.atLeast(5);
    expect(headset.eeg.streamThread()).toBe(thread);
    second.close();
  });

  for (const where of ['its own thread', 'the acquisition’s thread'] as const) {
    it(`a recording cut short while it plays ends the run as a failure, said in the stop (${where})`, async () => {
      const dir = scratchDir('headsetd-cut-short');
      const file = path.join(dir, 'cut.edf');
      copyFileSync(fixture('S002R01.edf'), file);
      const headset = keep(
        createReplayHeadset(file, where === 'its own thread' ? { deviceThread: DEVICE_THREAD } : {}),
      );
      const stops: { level: string; message: string }[] = [];
      headset.onEvent((event) => {
        if (event.type === 'system' && event.eventType === 'acquisition_stopped') stops.push(event);
      });
      const reader = readPort(headset);
      await headset.eeg.start('client');
      await reader.atLeast(5);
      // Only the header and a few records are left: the next record to read is gone.
      truncateSync(file, 6_000);
      await vi.waitFor(
        () => {
          expect(stops).toHaveLength(1);
        },
        { timeout: 20_000 },
      );
      reader.close();
      expect(stops[0]?.level).toBe('error');
      expect(stops[0]?.message).toMatch(
        /^EEG acquisition failed and stopped after \d+ samples: The recording .* was cut short/,
      );
      expect(headset.eeg.state()).toMatchObject({ streaming: false, owners: [] });
    });
  }
});
