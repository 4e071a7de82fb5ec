/**
 * The LSL outlet on its own, driven with raw sockets the way liblsl's inlets talk to it: discovery
 * answers only the queries that match (the kinds inlets send), a feed for another uid is 404 (how
 * inlets notice a restart), a newer protocol is 505, and a consumer that stops reading loses only
 * its own oldest samples while the others get every one.
 */
import dgram from 'node:dgram';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { sampleBytes110 } from '../../src/lsl/codec.js';
import { LOOPBACK_NETWORK } from '../../src/lsl/network.js';
import { LslOutlet } from '../../src/lsl/outlet.js';
import { eventually } from '../support/wait.js';

const network = { ...LOOPBACK_NETWORK, multicastPort: 29571, basePort: 29572, portRange: 8 };

function outlet(maxBufferedSamples = 1000): LslOutlet {
  return new LslOutlet({
    name: 'Raw Test',
    type: 'EEG',
    sourceId: 'raw-1',
    channelFormat: 'float32',
    nominalSrate: 250,
    channels: [
      { label: 'FP1', unit: 'microvolts', type: 'EEG' },
      { label: 'FP2', unit: 'microvolts', type: 'EEG' },
    ],
    chunkSize: 0,
    maxBufferedSamples,
    network,
  });
}

let current: LslOutlet | undefined;
afterEach(async () => {
  await current?.stop();
  current = undefined;
});

/** Sends one discovery query to the discovery port; the answer, or undefined if none within 300 ms. */
async function query(q: string): Promise<string | undefined> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const port = socket.address().port;
  const answer = new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => {
      resolve(undefined);
    }, 300);
    socket.once('message', (message) => {
      clearTimeout(timer);
      resolve(message.toString());
    });
  });
  socket.send(`LSL:shortinfo\r\n${q}\r\n${port} 4242\r\n`, network.multicastPort, '127.0.0.1');
  const result = await answer;
  socket.close();
  return result;
}

function feed(port: number, request: string): { socket: Socket; data: () => Buffer; closed: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) =>
    socket.on('close', () => {
      resolve();
    }),
  );
  socket.write(request);
  return { socket, data: () => Buffer.concat(chunks), closed };
}

const feedRequest = (uid: string, version = 110, maxBuffer = 1000) =>
  `LSL:streamfeed/${version} ${uid}\r\nNative-Byte-Order: 1234\r\nValue-Size: 4\r\nHas-IEEE754-Floats: 1\r\nData-Protocol-Version: ${version}\r\nMax-Buffer-Length: ${maxBuffer}\r\nMax-Chunk-Length: 0\r\n\r\n`;

describe('LslOutlet', () => {
  test('answers the discovery queries that match it, and only those', async () => {
    current = outlet();
    await current.start();
    const matching = [
      '',
      "session_id='default' and name='Raw Test'",
      "session_id='default' and type='EEG'",
      'type="EEG"',
      "source_id='raw-1'",
      "channel_count='2' and name='Raw Test' and type='EEG' and source_id='raw-1' and channel_format='float32'",
      "desc/channels/channel/label='FP2'",
      'starts-with(name,"Raw")',
    ];
    for (const q of matching) {
      const answer = await query(q);
      expect(answer, q).toMatch(/^4242\r\n<\?xml/);
      expect(answer).toContain('<desc />');
    }
    for (const q of [
      "name='Other'",
      "session_id='lab-2' and type='EEG'",
      "info/name='Raw Test'",
      'name=',
      'type="Markers"',
    ]) {
      expect(await query(q), q).toBeUndefined();
    }
  });

  test('a feed asking for another uid is answered 404, a newer protocol 505', async () => {
    current = outlet();
    await current.start();
    const port = current.streamInfo?.v4dataPort ?? 0;
    const lost = feed(port, feedRequest('00000000-0000-0000-0000-000000000000'));
    await lost.closed;
    expect(lost.data().toString()).toBe('LSL/110 404 Not found');
    const newer = feed(port, feedRequest(current.uid, 210));
    await newer.closed;
    expect(newer.data().toString()).toBe('LSL/110 505 Version not supported');
  });

  test('a consumer that stops reading loses its own oldest samples; the others get every one', async () => {
    current = outlet(1_000_000);
    await current.start();
    const port = current.streamInfo?.v4dataPort ?? 0;
    const fast = feed(port, feedRequest(current.uid, 110, 1_000_000));
    const slow = feed(port, feedRequest(current.uid, 110, 100));
    slow.socket.pause();
    await eventually(() => current!.stats().consumers >= 2, 10_000, 'two consumers');
    const header = (feedRequestAnswer: Buffer) => feedRequestAnswer.indexOf('\r\n\r\n') + 4;
    const size = sampleBytes110('float32', 2);
    // More than the kernel's socket buffers and the outlet's own bound hold for the slow one.
    const total = 400_000;
    for (let start = 0; start < total; start += 1000) {
      const data = new Float32Array(2000);
      const ts = new Float64Array(1000);
      for (let i = 0; i < 1000; i++) {
        ts[i] = 1000 + (start + i) / 250;
        data[2 * i] = start + i;
        data[2 * i + 1] = -(start + i);
      }
      current.push(data, ts);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const expected = header(fast.data()) + 2 * size + total * size;
    await eventually(() => fast.data().length >= expected, 25_000, 'every sample at the fast consumer');
    const bytes = fast.data();
    const first = header(bytes) + 2 * size;
    for (let i = 0; i < total; i += 9973) expect(bytes.readFloatLE(first + i * size + 9)).toBe(i);
    expect(bytes.length).toBe(expected);
    expect(current.stats().samplesDropped).toBeGreaterThan(0);
    fast.socket.destroy();
    slow.socket.destroy();
  });
});
