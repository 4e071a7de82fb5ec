import { describe, expect, it } from 'vitest';
import { type Frame, frameFromJson, frameJsonText, frameToJson } from './frame.js';

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

  it('writes NaN and ±Infinity as JSON does (null), and -0 as 0', () => {
    const special = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 1e-45, 3.4e38];
    const f = frame(2, NAMES, (i) => special[i] ?? 0);
    const text = frameJsonText(f);
    expect(text).toBe(JSON.stringify(frameToJson(f)));
    expect(JSON.parse(text).data[0]).toEqual([null, null, null]);
  });

  it('encodes channel names JSON needs to escape, and frames with no rows or no channels', () => {
    const odd = Object.freeze(['a"b', 'ü\\n', '\u2028']);
    for (const f of [frame(3, odd, (i) => i), frame(0, NAMES, () => 0), frame(0, [], () => 0)])
      expect(frameJsonText(f)).toBe(JSON.stringify(frameToJson(f)));
  });

  it('reads back to the same samples', () => {
    const f = frame(20, NAMES, (i) => Math.sin(i) * 123.456);
    expect(frameFromJson(JSON.parse(frameJsonText(f))).data).toEqual(f.data);
  });
});
