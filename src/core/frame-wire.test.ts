import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { Frame } from './frame.js';
import { DeviceFrameReader, type DeviceFrameMessage, DeviceFrameWriter } from './frame-wire.js';

const CHANNELS = Object.freeze(['Fp1', 'Cz', 'O2']);

function frame(seq: number, extra: Partial<Frame> = {}): Frame {
  const data = Float32Array.from({ length: 6 }, (_, i) => seq * 10 + i + 0.25);
  return { seq, timestamp: 1_764_201_600_123.456 + seq, sampleRate: 250, channels: CHANNELS, data, ...extra };
}

/** Writes `frames` through a real MessagePort, as the device's thread does, and reads them back. */
async function acrossPort(frames: Frame[]): Promise<{ read: Frame[]; messages: DeviceFrameMessage[] }> {
  const { port1, port2 } = new MessageChannel();
  const writer = new DeviceFrameWriter((message, transfer) => {
    port1.postMessage(message, transfer);
  });
  const reader = new DeviceFrameReader();
  const read: Frame[] = [];
  const messages: DeviceFrameMessage[] = [];
  const all = new Promise<void>((resolve) => {
    port2.on('message', (message: DeviceFrameMessage) => {
      messages.push(message);
      read.push(reader.read(message));
      if (read.length === frames.length) resolve();
    });
  });
  for (const f of frames) writer.write(f);
  await all;
  port1.close();
  return { read, messages };
}

describe('the device frames across a thread boundary', () => {
  it('arrive as they were written, every optional field included, packed when they carry no text', async () => {
    const frames = [
      frame(0),
      frame(1, { discontinuity: true, lostSamples: 3 }),
      frame(2, { range: 187_500, highpass: 0.5, createdAt: 123.75 }),
      frame(3, { units: ['µV', 'dB', '1'] }),
      frame(4, { annotation: 'SSVEP 12 Hz', marker: { text: 'm', timestamp: 5 } }),
      frame(5, { channels: Object.freeze(['A', 'B']) }),
      frame(6, {
        channels: Object.freeze(['A', 'B']),
        data: Float32Array.of(Number.NaN, -0, Infinity, 1e-45),
      }),
    ];
    const { read, messages } = await acrossPort(frames);
    read.forEach((got, k) => {
      const sent = frames[k] as Frame;
      expect({ ...got, data: Array.from(got.data) }).toEqual({ ...sent, data: Array.from(sent.data) });
    });
    expect(Object.is(read[6]?.data[1], -0)).toBe(true);
    // The names with the first frame and when they change; text in the object form; the rest packed.
    expect(messages.map((m) => (m instanceof ArrayBuffer ? 'packed' : 'object'))).toEqual([
      'object',
      'packed',
      'packed',
      'object',
      'object',
      'object',
      'packed',
    ]);
  });

  it('gives a frame absent optional fields no keys at all', async () => {
    const { read } = await acrossPort([frame(0), frame(1)]);
    expect(Object.keys(read[1] as Frame).sort()).toEqual([
      'channels',
      'data',
      'sampleRate',
      'seq',
      'timestamp',
    ]);
  });
});
