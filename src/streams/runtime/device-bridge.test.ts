import { describe, expect, it } from 'vitest';
import type { Frame } from '../../core/frame.js';
import type { DeviceFrameSource } from '../../core/node.js';
import { DeviceForwarder, DeviceProxy } from './device-bridge.js';
import type { FromHost, ToHost } from './thread-messages.js';

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

/** A forwarder and a proxy joined as the main thread and a worker are, messages cloned as postMessage does. */
async function joined() {
  let push: ((f: Frame) => void) | undefined;
  const device: DeviceFrameSource = {
    subscribe: (_request, onFrame) => {
      push = onFrame;
      return Promise.resolve(() => undefined);
    },
  };
  const wire: ToHost[] = [];
  const forwarder = new DeviceForwarder(device, (message) => {
    wire.push(structuredClone(message));
    proxy.handle(structuredClone(message));
  });
  const proxy = new DeviceProxy((message: FromHost) => {
    forwarder.handle(structuredClone(message));
  });
  const received: Frame[] = [];
  await proxy.subscribe({ channels: [] }, (f) => received.push(f));
  if (push === undefined) throw new Error('the device was not subscribed');
  return { push, wire, received };
}

describe('device frames across the thread boundary', () => {
  it('carry the channel names only when they change, and every frame arrives with them', async () => {
    const { push, wire, received } = await joined();
    for (let seq = 0; seq < 4; seq++) push(frame(seq));
    const other = Object.freeze(['E0', 'E1']);
    push(frame(4, other));
    push(frame(5, other));
    const frames = wire.filter((m) => m.kind === 'device-frame');
    expect(frames.map((m) => m.frame.channels?.length)).toEqual([
      21,
      undefined,
      undefined,
      undefined,
      2,
      undefined,
    ]);
    expect(received.map((f) => f.channels)).toEqual([...Array(4).fill(NAMES), other, other]);
    expect(received.map((f) => f.data[0])).toEqual([0, 1, 2, 3, 4, 5]);
    // One frozen list per change, shared by the frames: the runtime seals them without a copy.
    expect(received[1]?.channels).toBe(received[0]?.channels);
    expect(Object.isFrozen(received[0]?.channels)).toBe(true);
  });
});
