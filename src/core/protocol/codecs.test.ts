import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Frame } from '../frame.js';
import { BinaryDecoder, encodeBinary } from './binary.js';
import { createDecoder, encodeMessage } from './codec.js';
import { type ProtocolEncoding, ProtocolError, type ProtocolMessage } from './messages.js';
import { encodeNdjson, NdjsonDecoder } from './ndjson.js';

const name = fc.string({ minLength: 1, maxLength: 12 });
const float32 = fc
  .float({ noDefaultInfinity: true, noNaN: true })
  .map((value) => (Object.is(value, -0) ? 0 : value));

const frameArb: fc.Arbitrary<ProtocolMessage> = fc
  .record({
    port: name,
    seq: fc.nat(),
    timestamp: fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 4e12 }),
    sampleRate: fc.double({ noNaN: true, noDefaultInfinity: true, min: 0.001, max: 1e6 }),
    channels: fc.array(name, { minLength: 1, maxLength: 5 }),
    rows: fc.nat({ max: 6 }),
    discontinuity: fc.boolean(),
    seed: fc.array(float32, { minLength: 30, maxLength: 30 }),
    withUnits: fc.boolean(),
    unitSeed: fc.array(fc.constantFrom('µV', 'µV²', 'dB', '1', 'm/s^2', ''), { minLength: 5, maxLength: 5 }),
  })
  .map(({ port, seq, timestamp, sampleRate, channels, rows, discontinuity, seed, withUnits, unitSeed }) => {
    const data = new Float32Array(rows * channels.length);
    for (let i = 0; i < data.length; i += 1) data[i] = seed[i % seed.length] ?? 0;
    const frame: Frame = {
      seq,
      timestamp,
      sampleRate,
      channels,
      data,
      ...(withUnits ? { units: channels.map((_, c) => unitSeed[c] ?? 'µV') } : {}),
      ...(discontinuity ? { discontinuity: true } : {}),
    };
    return { type: 'frame' as const, port, frame };
  });

const payload = fc.dictionary(name, fc.oneof(fc.string(), fc.integer(), fc.boolean()), { maxKeys: 3 });

const messageArb: fc.Arbitrary<ProtocolMessage> = fc.oneof(
  frameArb,
  fc.record({ type: fc.constant('signal' as const), name, payload }),
  fc.record({ type: fc.constant('ready' as const), inputs: fc.array(name), outputs: fc.array(name) }),
  fc.record({ type: fc.constant('error' as const), message: fc.string() }),
  fc.record({ type: fc.constant('info' as const), info: payload }),
  fc.record({
    type: fc.constant('config' as const),
    version: fc.constant(1),
    streamId: name,
    nodeId: name,
    encoding: fc.constantFrom<ProtocolEncoding>('ndjson', 'binary'),
    config: payload,
  }),
);

/** Splits `bytes` at the given cut points (any order, duplicates allowed). */
function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let last = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(last, point));
    last = point;
  }
  return chunks;
}

describe.each<ProtocolEncoding>(['ndjson', 'binary'])('the %s codec', (encoding) => {
  it('decodes any chunking of encoded messages to the same messages', () => {
    fc.assert(
      fc.property(
        fc.array(messageArb, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (messages, cuts) => {
          const bytes = Buffer.concat(messages.map((message) => encodeMessage(encoding, message)));
          const decoder = createDecoder(encoding);
          const decoded = split(bytes, cuts).flatMap((chunk) => decoder.push(chunk));
          expect(decoded).toEqual(messages);
          expect(decoder.pendingBytes).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('hands over the messages completed before a fault in the same chunk', () => {
    const ready = encodeMessage(encoding, { type: 'ready' });
    const garbage = encoding === 'binary' ? Buffer.from([0xff, 0xff, 0xff, 0xff]) : Buffer.from('garbage\n');
    let fault: unknown;
    try {
      createDecoder(encoding).push(Buffer.concat([ready, garbage]));
    } catch (error) {
      fault = error;
    }
    expect(fault).toBeInstanceOf(ProtocolError);
    expect((fault as ProtocolError).decoded).toEqual([{ type: 'ready' }]);
  });

  it('refuses a message over the size limit before buffering it whole', () => {
    const decoder = createDecoder(encoding, 1024);
    const frame: Frame = {
      seq: 0,
      timestamp: 0,
      sampleRate: 250,
      channels: ['a'],
      data: new Float32Array(2000),
    };
    const bytes = encodeMessage(encoding, { type: 'frame', port: 'out', frame });
    expect(() => decoder.push(bytes.subarray(0, 1500))).toThrow(/refused/);
  });
});

describe('the NDJSON codec', () => {
  it('writes frames in the JSON text form with type and port', () => {
    const frame: Frame = {
      seq: 3,
      timestamp: 1000,
      sampleRate: 250,
      channels: ['Cz', 'Pz'],
      data: Float32Array.from([1, 2, 3, 4]),
    };
    const line = encodeNdjson({ type: 'frame', port: 'out', frame }).toString();
    expect(JSON.parse(line)).toEqual({
      type: 'frame',
      port: 'out',
      seq: 3,
      timestamp: 1000,
      sampleRate: 250,
      channels: ['Cz', 'Pz'],
      data: [
        [1, 2],
        [3, 4],
      ],
    });
    expect(line.endsWith('\n')).toBe(true);
  });

  it('reads null samples as NaN, skips blank lines and CRLF endings', () => {
    const decoder = new NdjsonDecoder();
    const text =
      '\r\n{"type":"frame","port":"in","seq":0,"timestamp":1,"sampleRate":2,"channels":["a"],"data":[[null],[1.5]]}\r\n';
    const [message] = decoder.push(Buffer.from(text));
    expect(message?.type).toBe('frame');
    if (message?.type === 'frame') expect(Array.from(message.frame.data)).toEqual([Number.NaN, 1.5]);
  });

  it('explains a line that is not JSON, such as a stray print to stdout', () => {
    expect(() => new NdjsonDecoder().push(Buffer.from('hello world\n'))).toThrow(/not JSON.*stderr/);
  });

  it('refuses rows that do not match the channels', () => {
    const text =
      '{"type":"frame","port":"in","seq":0,"timestamp":1,"sampleRate":2,"channels":["a","b"],"data":[[1]]}\n';
    expect(() => new NdjsonDecoder().push(Buffer.from(text))).toThrow(/row 0/);
  });

  it('refuses an unknown message type', () => {
    expect(() => new NdjsonDecoder().push(Buffer.from('{"type":"hello"}\n'))).toThrow(/unknown message type/);
  });

  it("reads a frame's units, and refuses units that are not one string per channel", () => {
    const head =
      '{"type":"frame","port":"in","seq":0,"timestamp":1,"sampleRate":2,"channels":["a","b"],"data":[[1,2]]';
    const [message] = new NdjsonDecoder().push(Buffer.from(`${head},"units":["µV²","dB"]}\n`));
    expect(message?.type === 'frame' ? message.frame.units : undefined).toEqual(['µV²', 'dB']);
    expect(() => new NdjsonDecoder().push(Buffer.from(`${head},"units":["dB"]}\n`))).toThrow(
      /'units' has 1 entries for 2 channels/,
    );
    expect(() => new NdjsonDecoder().push(Buffer.from(`${head},"units":"dB"}\n`))).toThrow(
      /'units' must be an array of strings/,
    );
  });
});

describe('the binary codec', () => {
  it('lays a frame out exactly as documented', () => {
    const frame: Frame = {
      seq: 7,
      timestamp: 1.5,
      sampleRate: 250,
      channels: ['C3'],
      data: Float32Array.from([0.5, -2]),
      discontinuity: true,
    };
    const bytes = encodeBinary({ type: 'frame', port: 'out', frame });
    const expected = Buffer.concat([
      Buffer.from([0, 0, 0, 0]), // length, patched below
      Buffer.from([2, 1]), // type frame, flags discontinuity
      Buffer.from([3, 0]),
      Buffer.from('out'),
      Buffer.from([7, 0, 0, 0, 0, 0, 0, 0]),
      (() => {
        const b = Buffer.alloc(16);
        b.writeDoubleLE(1.5, 0);
        b.writeDoubleLE(250, 8);
        return b;
      })(),
      Buffer.from([1, 0, 2, 0]),
      Buffer.from('C3'),
      Buffer.from([2, 0, 0, 0]),
      (() => {
        const b = Buffer.alloc(8);
        b.writeFloatLE(0.5, 0);
        b.writeFloatLE(-2, 4);
        return b;
      })(),
    ]);
    expected.writeUInt32LE(expected.length - 4, 0);
    expect(bytes).toEqual(expected);
  });

  it('lays a frame with units out as documented: flag bit 1, each unit after the names', () => {
    const frame: Frame = {
      seq: 0,
      timestamp: 0,
      sampleRate: 4,
      channels: ['a'],
      units: ['dB'],
      data: Float32Array.from([3]),
    };
    const bytes = encodeBinary({ type: 'frame', port: 'p', frame });
    expect(bytes[5]).toBe(2); // flags: units
    const names = 4 + 1 + 1 + 2 + 1 + 24 + 2;
    expect([...bytes.subarray(names, names + 8)]).toEqual([1, 0, 0x61, 2, 0, 0x64, 0x42, 1]);
    const [decoded] = new BinaryDecoder().push(bytes);
    expect(decoded).toEqual({ type: 'frame', port: 'p', frame });
  });

  it('carries other messages as a type byte and their JSON object', () => {
    const bytes = encodeBinary({ type: 'signal', name: 'marker', payload: { text: 'blink' } });
    expect(bytes.readUInt32LE(0)).toBe(bytes.length - 4);
    expect(bytes[4]).toBe(3);
    expect(JSON.parse(bytes.subarray(5).toString())).toEqual({
      type: 'signal',
      name: 'marker',
      payload: { text: 'blink' },
    });
  });

  it('refuses a length over the limit from the prefix alone', () => {
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32LE(17 * 1024 * 1024, 0);
    expect(() => new BinaryDecoder().push(prefix)).toThrow(/refused/);
  });

  it('refuses a frame whose sample bytes do not match its header', () => {
    const frame: Frame = {
      seq: 0,
      timestamp: 0,
      sampleRate: 1,
      channels: ['a'],
      data: Float32Array.from([1]),
    };
    const bytes = Buffer.from(encodeBinary({ type: 'frame', port: 'p', frame }));
    bytes.writeUInt32LE(bytes.readUInt32LE(0) - 2, 0);
    expect(() => new BinaryDecoder().push(bytes.subarray(0, bytes.length - 2))).toThrow(/sample bytes/);
  });

  it('hands the frames of one channel list the same frozen list, and a new list when it changes', () => {
    const frameOf = (channels: string[]): ProtocolMessage => ({
      type: 'frame',
      port: 'out',
      frame: { seq: 0, timestamp: 0, sampleRate: 250, channels, data: new Float32Array(channels.length) },
    });
    const decoder = new BinaryDecoder();
    const decode = (channels: string[]): readonly string[] => {
      const [message] = decoder.push(encodeBinary(frameOf(channels)));
      if (message?.type !== 'frame') throw new Error('expected a frame');
      return message.frame.channels;
    };
    const first = decode(['Fp1', 'Fp2']);
    const second = decode(['Fp1', 'Fp2']);
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    // Same byte length, other names; then fewer channels; then back.
    expect(decode(['Fp1', 'Fp3'])).toEqual(['Fp1', 'Fp3']);
    expect(decode(['Cz'])).toEqual(['Cz']);
    expect(decode(['Fp1', 'Fp2'])).toEqual(['Fp1', 'Fp2']);
    expect(decode([])).toEqual([]);
  });
});
