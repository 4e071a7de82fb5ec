import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { type Frame, frameFromJson, frameJsonText, frameToJson } from './frame.js';
import { messageFromJson, messageToJson } from './protocol/json-messages.js';
import { encodeNdjson } from './protocol/ndjson.js';

/** A small deterministic generator (the test needs variety, not quality). */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

function frame(
  rows: number,
  channels: readonly string[],
  fill: (i: number) => number,
  extra: Partial<Frame> = {},
): Frame {
  const data = new Float32Array(rows * channels.length);
  for (let i = 0; i < data.length; i++) data[i] = fill(i);
  return { seq: 7, timestamp: 1_764_201_600_123.456, sampleRate: 250, channels, data, ...extra };
}

const NAMES = Object.freeze(['Fp1', 'Cz', 'O2']);

describe('frameJsonText', () => {
  it('is exactly JSON.stringify(frameToJson(frame)) for any float32 values', () => {
    const next = lcg(42);
    for (let trial = 0; trial < 300; trial++) {
      const scale = 10 ** Math.floor(next() * 40 - 20);
      const f = frame(1 + Math.floor(next() * 25), NAMES, () => (next() - 0.5) * scale, {
        seq: Math.floor(next() * 1e9),
        ...(trial % 7 === 0 ? { discontinuity: true } : {}),
      });
      expect(frameJsonText(f)).toBe(JSON.stringify(frameToJson(f)));
    }
  });

  it('writes NaN, Infinity and -Infinity as the strings of those names, telling them apart, and -0 as 0', () => {
    const special = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 1e-45, 3.4e38];
    const f = frame(2, NAMES, (i) => special[i] ?? 0);
    const text = frameJsonText(f);
    expect(text).toBe(JSON.stringify(frameToJson(f)));
    const parsed = JSON.parse(text) as { data: unknown[][] };
    expect(parsed.data[0]).toEqual(['NaN', 'Infinity', '-Infinity']);
    expect(parsed.data[1]).toEqual([0, 1e-45, 3.4e38]);
    expect((parsed.data[1] as number[]).map(Math.fround)).toEqual([
      0,
      Math.fround(1e-45),
      Math.fround(3.4e38),
    ]);
    // Python's json module reads the same text, and float() makes the strings numbers again.
    const python = spawnSync(
      '/usr/bin/python3',
      [
        '-c',
        'import json,sys; f=json.loads(sys.stdin.read()); print(json.dumps([repr(float(v)) for v in f["data"][0]]))',
      ],
      { input: text, encoding: 'utf8' },
    );
    expect(JSON.parse(python.stdout)).toEqual(['nan', 'inf', '-inf']);
    const back = frameFromJson(parsed as never).data;
    expect([back[0], back[1], back[2]]).toEqual([
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
    ]);
  });

  it('the node protocol writes the same strings, and reads them (and null, as NaN)', () => {
    const f = frame(1, NAMES, (i) => [Number.NaN, Number.NEGATIVE_INFINITY, 2][i] ?? 0);
    const json = messageToJson({ type: 'frame', port: 'out', frame: f }) as { data: unknown[][] };
    expect(json.data).toEqual([['NaN', '-Infinity', 2]]);
    const read = messageFromJson({ ...json, data: [['Infinity', null, 2]] });
    expect(read.type === 'frame' && Array.from(read.frame.data)).toEqual([
      Number.POSITIVE_INFINITY,
      Number.NaN,
      2,
    ]);
  });

  it('writes a node protocol frame as JSON.stringify(messageToJson(message)), marker and annotation left out', () => {
    const next = lcg(7);
    const special = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0];
    for (let trial = 0; trial < 100; trial++) {
      const f = frame(1 + Math.floor(next() * 25), NAMES, (i) => special[i] ?? (next() - 0.5) * 1e3, {
        ...(trial % 3 === 0 ? { discontinuity: true } : {}),
        ...(trial % 4 === 0 ? { units: ['µV', 'dB', '1'] } : {}),
        ...(trial % 5 === 0 ? { annotation: 'SSVEP 12 Hz', marker: { text: 'm', timestamp: 1 } } : {}),
      });
      const message = { type: 'frame' as const, port: trial % 2 === 0 ? 'in' : 'o"ut', frame: f };
      expect(encodeNdjson(message).toString('utf8')).toBe(`${JSON.stringify(messageToJson(message))}\n`);
    }
  });

  it('refuses a value that is neither a number nor one of the three strings', () => {
    const json = { ...frameToJson(frame(1, ['a'], () => 1)), data: [['nan']] };
    expect(() => frameFromJson(json as never)).toThrow(/"NaN", "Infinity", "-Infinity"/);
  });

  it('encodes channel names JSON needs to escape, and frames with no rows or no channels', () => {
    const odd = Object.freeze(['a"b', 'ü\\n', '\u2028']);
    for (const f of [frame(3, odd, (i) => i), frame(0, NAMES, () => 0), frame(0, [], () => 0)])
      expect(frameJsonText(f)).toBe(JSON.stringify(frameToJson(f)));
  });

  it('writes each sample with the fewest digits that read back as its float32, not its double widening', () => {
    const f = frame(1, NAMES, (i) => [0.1, -12.345, 44.5390625][i] ?? 0);
    expect(f.data[0]).toBe(0.10000000149011612);
    expect(frameJsonText(f)).toContain('"data":[[0.1,-12.345,44.539062]]');
  });

  it('reads back to the same samples', () => {
    const f = frame(20, NAMES, (i) => Math.sin(i) * 123.456);
    expect(frameFromJson(JSON.parse(frameJsonText(f))).data).toEqual(f.data);
  });

  it('writes units after data only when the frame has them, and reads them back', () => {
    const plain = frame(2, NAMES, (i) => i);
    expect(frameJsonText(plain)).not.toContain('units');
    const units = NAMES.map((_, c) => (c === 0 ? 'µV²' : 'dB'));
    const derived = { ...plain, units };
    const text = frameJsonText(derived);
    expect(text).toBe(JSON.stringify(frameToJson(derived)));
    expect(text).toContain(`"units":${JSON.stringify(units)}`);
    expect(frameFromJson(JSON.parse(text)).units).toEqual(units);
    expect(() => frameFromJson({ ...frameToJson(plain), units: ['dB'] })).toThrow(/'units' has 1 entries/);
  });

  it('writes the annotation (an ssvep detection) when the frame has one, as frameToJson does, and reads it back', () => {
    const plain = frame(2, NAMES, (i) => i);
    expect(frameJsonText(plain)).not.toContain('annotation');
    const noted = { ...plain, annotation: 'SSVEP 12 Hz "quoted"' };
    const text = frameJsonText(noted);
    expect(text).toBe(JSON.stringify(frameToJson(noted)));
    expect(frameFromJson(JSON.parse(text)).annotation).toBe('SSVEP 12 Hz "quoted"');
  });
});
