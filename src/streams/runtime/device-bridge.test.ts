import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Frame } from '../../core/frame.js';
import { ListenerSet } from '../../core/listener-set.js';
import type { DeviceFeed } from '../../core/node.js';
import { headsetFrameSource } from '../../device/sources/frame-source.js';
import type { SimulatedHeadset } from '../../device/simulated/index.js';
import { advance, fakeTimeHeadset } from '../../../test/support/device.js';
import { DeviceForwarder, DeviceProxy } from './device-bridge.js';
import type { RuntimeEvent } from './stream-runtime.js';
import type { FromHost, ToHost } from './thread-messages.js';
import { type DeviceFrameMessage, isDeviceFrameMessage } from '../../core/frame-wire.js';

const NAMES = Object.freeze(Array.from({ length: 21 }, (_, c) => `E${c}`));

function frame(seq: number, channels: readonly string[] = NAMES): Frame {
  return {
    seq,
    timestamp: 1_700_000_000_000 + seq * 12,
    sampleRate: 250,
    channels,
    data: new Float32Array(3 * channels.length).fill(seq),
  };
}

/** The event loop's own immediate, for the tests that fake the timers (it moves port messages). */
const realImmediate = setImmediate;

/** Lets the frame ports deliver what was written to them (messages move on the event loop). */
async function flushPorts(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => realImmediate(resolve));
}

/** Device time moves by `ms`, and the frames it made reach the worker's side. */
async function settle(ms: number): Promise<void> {
  await advance(ms);
  await flushPorts();
}

/**
 * A forwarder and a proxy joined as the main thread and a worker are, messages cloned as
 * postMessage does; `wire` keeps what reached the worker (the device's frames as they came on its
 * frame port), `events` the nodes' events.
 */
function joined(device: DeviceFeed) {
  const wire: (ToHost | DeviceFrameMessage)[] = [];
  const events: RuntimeEvent[] = [];
  const forwarder = new DeviceForwarder(
    device,
    (message) => {
      if (message.kind === 'device-port') {
        message.port.on('message', (frame: DeviceFrameMessage) => wire.push(structuredClone(frame)));
        proxy.handle(message);
        return;
      }
      wire.push(structuredClone(message));
      proxy.handle(structuredClone(message));
    },
    (event) => events.push(event),
  );
  const proxy = new DeviceProxy((message: FromHost) => {
    forwarder.handle(structuredClone(message));
  });
  return { proxy, forwarder, wire, events };
}

/** A device whose frames the test pushes, granting every subscription the channels it asks. */
function pushedDevice() {
  const listeners = new ListenerSet<Frame>();
  const device: DeviceFeed = {
    open: (request) =>
      Promise.resolve({
        channels: request.channels.length === 0 ? undefined : request.channels,
        close: () => undefined,
      }),
    onFrame: (listener) => listeners.add(listener),
  };
  return {
    device,
    push: (f: Frame) => {
      listeners.emit(f);
    },
  };
}

describe('device frames across the thread boundary', () => {
  it('carry the channel names only when they change, and every frame arrives with them', async () => {
    const { device, push } = pushedDevice();
    const { proxy, wire } = joined(device);
    const received: Frame[] = [];
    await proxy.subscribe({ channels: [] }, (f) => received.push(f));
    for (let seq = 0; seq < 4; seq++) push(frame(seq));
    const other = Object.freeze(['E0', 'E1']);
    push(frame(4, other));
    push(frame(5, other));
    await flushPorts();
    const frames = wire.filter(isDeviceFrameMessage);
    // The frames whose channels did not change travel packed in one buffer, without names.
    expect(frames.map((m) => (m instanceof ArrayBuffer ? undefined : m.frame.channels?.length))).toEqual([
      21,
      undefined,
      undefined,
      undefined,
      2,
      undefined,
    ]);
    // Without a list the subscription keeps the channels of its first frame: held once they go.
    expect(received.map((f) => f.channels)).toEqual(Array(4).fill(NAMES));
    expect(received.map((f) => f.data[0])).toEqual([0, 1, 2, 3]);
    // One frozen list per change, shared by the frames: the runtime seals them without a copy.
    expect(received[1]?.channels).toBe(received[0]?.channels);
    expect(Object.isFrozen(received[0]?.channels)).toBe(true);
  });

  it('a subscription with a list gets the new list’s frames with its channels', async () => {
    const { device, push } = pushedDevice();
    const { proxy } = joined(device);
    const received: Frame[] = [];
    await proxy.subscribe({ channels: ['E1', 'E0'] }, (f) => received.push(f));
    push(frame(0));
    push(frame(1, Object.freeze(['E0', 'E1'])));
    await flushPorts();
    expect(received.map((f) => f.channels)).toEqual([
      ['E1', 'E0'],
      ['E1', 'E0'],
    ]);
    expect(received.map((f) => f.data[0])).toEqual([0, 1]);
  });
});

describe('the device’s frames go to a worker once, each subscription takes its part there', () => {
  let headset: SimulatedHeadset | undefined;

  afterEach(async () => {
    await headset?.close();
    headset = undefined;
    vi.useRealTimers();
  });

  /** The headset as the service hands it to the runtime, with a worker's proxy joined to it. */
  function headsetJoined() {
    vi.useFakeTimers();
    headset = fakeTimeHeadset();
    const device = headsetFrameSource(headset);
    const deviceFrames: Frame[] = [];
    headset.eeg.onFrame((f) => deviceFrames.push(f));
    return { headset, deviceFrames, ...joined(device) };
  }

  it('a run the subscription starts reaches the worker from its first frame, however late the device answers', async () => {
    vi.useFakeTimers();
    headset = fakeTimeHeadset();
    const feed = headsetFrameSource(headset);
    const deviceFrames: Frame[] = [];
    headset.eeg.onFrame((f) => deviceFrames.push(f));
    // The device starts the run, then takes 50 ms of device time to answer (a loaded main thread).
    const slow: DeviceFeed = {
      ...feed,
      open: async (request, onHold) => {
        const opened = await feed.open(request, onHold);
        await advance(50);
        return opened;
      },
    };
    const { proxy } = joined(slow);
    const received: Frame[] = [];
    const stop = await proxy.subscribe({ channels: [] }, (f) => received.push(f));
    await settle(100);
    expect(deviceFrames.length).toBeGreaterThan(8);
    expect(deviceFrames[0]?.discontinuity).toBe(true); // the run's first frame
    expect(received.map((f) => f.seq)).toEqual(deviceFrames.map((f) => f.seq));
    stop();
  });

  it('N subscriptions on one worker: each device frame is posted to it once, and each gets its own channels', async () => {
    const { headset: h, proxy, wire, deviceFrames } = headsetJoined();
    const asked = [['CZ'], ['O1', 'FP1'], [], ['PZ', 'CZ', 'O2']];
    const received = asked.map(() => [] as Frame[]);
    const stops = await Promise.all(
      asked.map((channels, i) => proxy.subscribe({ channels }, (f) => received[i]?.push(f))),
    );
    // Counted from a clean start: frames made while subscriptions opened are not compared.
    wire.length = 0;
    deviceFrames.length = 0;
    received.forEach((r) => (r.length = 0));
    await settle(200);
    expect(deviceFrames.length).toBeGreaterThan(5);
    expect(wire.filter(isDeviceFrameMessage)).toHaveLength(deviceFrames.length);
    for (const r of received) expect(r).toHaveLength(deviceFrames.length);
    expect(received[0]?.[0]?.channels).toEqual(['Cz']);
    expect(received[1]?.[0]?.channels).toEqual(['O1', 'Fp1']);
    expect(received[2]?.[0]?.channels).toEqual(deviceFrames[0]?.channels);
    expect(received[3]?.[0]?.channels).toEqual(['Pz', 'Cz', 'O2']);
    // The same values as the device's frame, column by column, and the same times.
    deviceFrames.forEach((device, k) => {
      const width = device.channels.length;
      const o1 = device.channels.indexOf('O1');
      const fp1 = device.channels.indexOf('Fp1');
      const mine = received[1]?.[k];
      expect(mine?.timestamp).toBe(device.timestamp);
      expect(mine?.seq).toBe(device.seq);
      const rows = device.data.length / width;
      for (let row = 0; row < rows; row++) {
        expect(mine?.data[row * 2]).toBe(device.data[row * width + o1]);
        expect(mine?.data[row * 2 + 1]).toBe(device.data[row * width + fp1]);
      }
    });
    for (const stop of stops) stop();
    await settle(20);
    expect(h.eeg.state().streaming).toBe(false);
  });

  it('a hold in one subscription leaves another’s frames as they were; its own resumes with a discontinuity', async () => {
    const { headset: h, proxy, events, deviceFrames } = headsetJoined();
    await h.eeg.configure({ channels: ['PZ', 'O1', 'O2'] });
    const held: Frame[] = [];
    const steady: Frame[] = [];
    const joinedFrames: Frame[] = [];
    const owner = (nodeId: string) => ({ streamId: 's', nodeId });
    const stopHeld = await proxy.subscribe({ channels: ['O2', 'PZ'], owner: owner('held') }, (f) =>
      held.push(f),
    );
    const stopSteady = await proxy.subscribe({ channels: ['PZ', 'O1'], owner: owner('steady') }, (f) =>
      steady.push(f),
    );
    const stopJoined = await proxy.subscribe(
      { channels: ['O2'], frameMs: 100, owner: owner('joined') },
      (f) => joinedFrames.push(f),
    );
    deviceFrames.length = 0;
    await settle(100);
    await h.eeg.configure({ channels: ['PZ', 'O1'] });
    const before = held.length;
    const joinedBefore = joinedFrames.length;
    await settle(150);
    expect(held).toHaveLength(before);
    expect(events.map((e) => [e.type, 'nodeId' in e ? e.nodeId : ''])).toEqual([
      ['node_degraded', 'held'],
      ['node_degraded', 'joined'],
    ]);
    expect(events[0]).toMatchObject({ message: expect.stringContaining('no longer acquires O2') });
    // Every row of O2 the device made before the hold went out with it (the last ones joined as a
    // shorter frame), none after.
    const rowsOf = (frames: readonly Frame[]) =>
      frames.reduce((n, f) => n + f.data.length / f.channels.length, 0);
    expect(joinedFrames.length).toBeGreaterThan(0);
    expect(rowsOf(joinedFrames)).toBe(rowsOf(deviceFrames.filter((f) => f.channels.includes('O2'))));
    await h.eeg.configure({ channels: ['O2', 'O1', 'PZ'] });
    await settle(150);
    expect(held[before]).toMatchObject({ channels: ['O2', 'Pz'], discontinuity: true });
    expect(joinedFrames[joinedBefore]).toMatchObject({ channels: ['O2'], discontinuity: true });
    expect(
      events.filter((e) => e.type === 'node_recovered').map((e) => ('nodeId' in e ? e.nodeId : '')),
    ).toEqual(['held', 'joined']);
    // The steady subscription saw every frame of the device, with the device's own flags (a change
    // of configuration is the device's discontinuity), across both changes.
    expect(steady.length).toBeGreaterThan(before);
    expect(steady.map((f) => [f.timestamp, f.discontinuity])).toEqual(
      deviceFrames.map((f) => [f.timestamp, f.discontinuity]),
    );
    for (const f of steady) expect(f.channels).toEqual(['Pz', 'O1']);
    stopHeld();
    stopSteady();
    stopJoined();
  });

  it('a forced reset holds every subscription of the worker, reported for each; frames resume with a discontinuity', async () => {
    const { headset: h, proxy, events } = headsetJoined();
    const frames: Frame[][] = [[], []];
    const stops: (() => void)[] = [];
    for (const [i, nodeId] of ['a', 'b'].entries())
      stops.push(
        await proxy.subscribe({ channels: ['CZ'], owner: { streamId: 's', nodeId } }, (f) =>
          frames[i]?.push(f),
        ),
      );
    await settle(50);
    await h.eeg.reset({ force: true });
    const before = frames.map((f) => f.length);
    await settle(100);
    expect(events.map((e) => e.type)).toEqual([
      'node_degraded',
      'node_degraded',
      'node_recovered',
      'node_recovered',
    ]);
    expect(events[0]).toMatchObject({ message: expect.stringContaining('forced reset') });
    frames.forEach((f, i) => {
      expect(f[before[i] ?? 0]).toMatchObject({ discontinuity: true });
    });
    for (const stop of stops) stop();
  });

  it('a refused subscription is answered with its code and details, and nothing is posted for it', async () => {
    const { headset: h, proxy, wire } = headsetJoined();
    await h.eeg.configure({ channels: ['PZ', 'O1'] });
    await expect(proxy.subscribe({ channels: ['O1', 'CZ'] }, () => undefined)).rejects.toMatchObject({
      code: 'channels_unavailable',
      details: { channels: ['CZ'], field: 'channels/1' },
    });
    await settle(50);
    expect(wire.filter(isDeviceFrameMessage)).toHaveLength(0);
    expect(h.eeg.state().streaming).toBe(false);
  });
});

describe('a frame port that closes under open subscriptions', () => {
  it('holds each of them, saying the device’s frames stopped, and tells the main thread', async () => {
    const posted: FromHost[] = [];
    const proxy = new DeviceProxy((message) => posted.push(message));
    const conditions: (string | undefined)[] = [];
    const opening = proxy.subscribe(
      { channels: [] },
      () => undefined,
      (problem) => conditions.push(problem),
    );
    proxy.handle({ kind: 'device-subscribed', subscription: 1 });
    await opening;
    const { port1, port2 } = new MessageChannel();
    proxy.handle({ kind: 'device-port', port: port2 });
    port1.close();
    await vi.waitFor(() => {
      expect(conditions).toHaveLength(1);
    });
    expect(conditions[0]).toMatch(/^the device's frames stopped: the thread that produced them ended/);
    expect(posted.at(-1)).toMatchObject({ kind: 'device-condition', subscription: 1 });
  });
});

describe("in the device's own thread, the frames made while the device opens a subscription", () => {
  /** A proxy in the device's thread: `make` is the thread making a frame; `posted` what it asked. */
  function local() {
    const made = new ListenerSet<Frame>();
    const posted: FromHost[] = [];
    const proxy = new DeviceProxy(
      (message) => posted.push(message),
      (listener) => made.add(listener),
    );
    const make = (f: Frame): void => {
      made.emit(f);
    };
    return { proxy, posted, make };
  }
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('reach the subscriber after its start, first and in order (the run it starts loses no frame)', async () => {
    const { proxy, make } = local();
    const got: number[] = [];
    const opening = proxy.subscribe({ channels: [] }, (f) => got.push(f.seq));
    // The run begins here and its timer comes before the main thread's answer does.
    make(frame(0));
    make(frame(1));
    proxy.handle({ kind: 'device-subscribed', subscription: 1 });
    await opening;
    expect(got).toEqual([]); // not while the node is still starting
    make(frame(2)); // made before the held ones went: after them
    await tick();
    make(frame(3));
    expect(got).toEqual([0, 1, 2, 3]);
  });

  it('are dropped when the device refuses, and an unsubscribe before they went ends the subscription', async () => {
    const refused = local();
    const got: number[] = [];
    const opening = refused.proxy.subscribe({ channels: [] }, (f) => got.push(f.seq));
    refused.make(frame(0));
    refused.proxy.handle({ kind: 'device-subscribed', subscription: 1, error: 'no' });
    await expect(opening).rejects.toThrow('no');
    await tick();
    refused.make(frame(1));
    expect(got).toEqual([]);

    const left = local();
    const unsubscribe = left.proxy.subscribe({ channels: [] }, (f) => got.push(f.seq));
    left.make(frame(0));
    left.proxy.handle({ kind: 'device-subscribed', subscription: 1 });
    (await unsubscribe)();
    await tick();
    left.make(frame(1));
    expect(got).toEqual([]);
    expect(left.posted.at(-1)).toEqual({ kind: 'device-unsubscribe', subscription: 1 });
  });
});
