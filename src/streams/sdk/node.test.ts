/**
 * The TypeScript SDK in-process: its stdin and stdout are PassThrough streams speaking the node
 * protocol through the project's own codecs, in both encodings.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createDecoder, encodeMessage } from '../../core/protocol/codec.js';
import type { ProtocolEncoding, ProtocolMessage } from '../../core/protocol/messages.js';
import { frameLike, frameRows, type NodeHandlers, run, sampleCount } from './node.js';
import { eventually } from '../../../test/support/wait.js';

function harness(encoding: ProtocolEncoding, handlers: NodeHandlers) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const received: ProtocolMessage[] = [];
  const decoder = createDecoder(encoding);
  stdout.on('data', (chunk: Buffer) => received.push(...decoder.push(chunk)));
  const exits: number[] = [];
  const stderr = new PassThrough();
  let log = '';
  stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const node = run(handlers, {
    stdin,
    stdout,
    stderr,
    env: { HEADSETD_PROTOCOL: encoding },
    exit: (code) => exits.push(code),
  });
  const write = (message: ProtocolMessage): void => {
    stdin.write(encodeMessage(encoding, message));
  };
  write({ type: 'config', version: 1, streamId: 's', nodeId: 'n', encoding, config: { gain: 3 } });
  return { node, stdin, received, exits, write, log: () => log };
}

const input = {
  seq: 0,
  timestamp: 1000,
  sampleRate: 250,
  channels: ['C3', 'C4'],
  data: Float32Array.from([1, 2, 3, 4]),
};

describe.each<ProtocolEncoding>(['ndjson', 'binary'])('the TypeScript SDK over %s', (encoding) => {
  it('starts, announces ready with its ports, processes frames and stops', async () => {
    const events: string[] = [];
    const h = harness(encoding, {
      inputs: ['in'],
      outputs: ['out'],
      onStart(config) {
        events.push(`start gain=${String(config.gain)}`);
      },
      onData(port, frame, send) {
        events.push(`data ${port} ${frame.seq}`);
        const gain = 3;
        send(
          'out',
          frameLike(
            frame,
            frame.data.map((v) => v * gain),
          ),
        );
      },
      onSignal(name, payload) {
        events.push(`signal ${name} ${JSON.stringify(payload)}`);
      },
      onStop() {
        events.push('stop');
      },
    });
    await eventually(() => h.received.length === 1, 10_000, 'ready');
    expect(h.received[0]).toEqual({ type: 'ready', inputs: ['in'], outputs: ['out'] });
    expect(h.node.config).toEqual({ gain: 3 });
    expect(h.node.streamId).toBe('s');

    h.write({ type: 'frame', port: 'in', frame: input });
    h.write({ type: 'signal', name: 'marker', payload: { text: 'blink' } });
    h.write({ type: 'frame', port: 'in', frame: { ...input, seq: 1 } });
    await eventually(() => h.received.length === 3, 10_000, 'two frames');
    const [, first, second] = h.received;
    expect(first?.type === 'frame' && Array.from(first.frame.data)).toEqual([3, 6, 9, 12]);
    expect(first?.type === 'frame' && first.frame.seq).toBe(0);
    expect(second?.type === 'frame' && second.frame.seq).toBe(1);
    expect(first?.type === 'frame' && first.frame.timestamp).toBe(1000);

    h.write({ type: 'signal', name: 'stop', payload: {} });
    await eventually(() => h.exits.length === 1, 10_000, 'the exit');
    expect(h.exits).toEqual([0]);
    expect(events).toEqual([
      'start gain=3',
      'data in 0',
      'signal marker {"text":"blink"}',
      'data in 1',
      'stop',
    ]);
  });

  it('exits when stdin reaches end-of-file', async () => {
    const h = harness(encoding, {});
    await eventually(() => h.received.length === 1, 10_000, 'ready');
    h.stdin.end();
    await eventually(() => h.exits.length === 1, 10_000, 'the exit');
    expect(h.exits).toEqual([0]);
  });

  it('keeps order through async handlers', async () => {
    const seen: number[] = [];
    const h = harness(encoding, {
      async onData(_port, frame) {
        // Later frames finish sooner: order must still hold. These delays are what is tested (a
        // handler that takes time), not a wait for something.
        await new Promise((resolve) => setTimeout(resolve, 30 - frame.seq * 10));
        seen.push(frame.seq);
      },
    });
    for (let seq = 0; seq < 3; seq += 1) h.write({ type: 'frame', port: 'in', frame: { ...input, seq } });
    await eventually(() => seen.length === 3, 10_000, 'three frames');
    expect(seen).toEqual([0, 1, 2]);
  });

  it('numbers frames per port, takes rows, and marks the first frame after resume', async () => {
    const h = harness(encoding, {});
    await eventually(() => h.received.length === 1, 10_000, 'ready');
    const out = { sampleRate: 10, channels: ['a'], timestamp: 5 };
    h.node.send('out', { ...out, data: [[1], [2]] });
    h.node.send('other', { ...out, data: [[3]] });
    h.write({ type: 'signal', name: 'pause', payload: {} });
    h.write({ type: 'signal', name: 'resume', payload: {} });
    await eventually(() => !h.node.paused, 10_000, 'the resume');
    h.node.send('out', { ...out, data: [[4]] });
    h.node.send('out', { ...out, data: [[5]] });
    await eventually(() => h.received.length === 5, 10_000, 'four frames');
    const frames = h.received.flatMap((m) => (m.type === 'frame' ? [m] : []));
    expect(frames.map((m) => [m.port, m.frame.seq, m.frame.discontinuity ?? false])).toEqual([
      ['out', 0, false],
      ['other', 0, false],
      ['out', 1, true],
      ['out', 2, false],
    ]);
    expect(frames[0] && frameRows(frames[0].frame)).toEqual([[1], [2]]);
    expect(() =>
      h.node.send('out', { sampleRate: 1, channels: ['a', 'b'], data: Float32Array.of(1, 2, 3) }),
    ).toThrow(/do not fill rows/);
  });

  it('reports an exception in a handler as an error message and exits with status 1', async () => {
    const h = harness(encoding, {
      onData() {
        throw new Error('bad frame');
      },
    });
    h.write({ type: 'frame', port: 'in', frame: input });
    await eventually(() => h.exits.length === 1, 10_000, 'the exit');
    expect(h.exits).toEqual([1]);
    expect(h.received.at(-1)).toEqual({ type: 'error', message: 'bad frame' });
    expect(h.log()).toMatch(/Error: bad frame\n\s+at /);
  });
});

describe('the SDK frame helpers', () => {
  it('reads rows and counts samples', () => {
    expect(sampleCount(input)).toBe(2);
    expect(frameRows(input)).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('builds a frame like another with new samples', () => {
    const like = frameLike({ ...input, discontinuity: true }, [[0, 0]], { sampleRate: 1 });
    expect(like).toEqual({
      timestamp: 1000,
      sampleRate: 1,
      channels: ['C3', 'C4'],
      discontinuity: true,
      data: [[0, 0]],
    });
  });
});
