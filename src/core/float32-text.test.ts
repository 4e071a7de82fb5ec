import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { float32JsonRows, float32Text } from './float32-text.js';
import { callPython, pythonSource } from '../../test/support/python.js';
import { prng } from '../../test/support/prng.js';

/**
 * numpy's shortest float32 text (`repr` of an `np.float32`: Dragon4 in its unique mode), compared
 * with ours as exact decimals: the same value means the same digits, the same length and the same
 * choice among texts of that length. Answers the indices where they differ.
 */
const NUMPY = pythonSource(
  'float32_text_reference',
  `
from decimal import Decimal
import numpy as np

def differences(values, texts):
    out = []
    for i, (v, ours) in enumerate(zip(values, texts)):
        theirs = repr(np.float32(v))
        if Decimal(ours) != Decimal(theirs) or np.float32(ours) != v:
            out.append([i, ours, theirs])
    return out
`,
);

/** Random float32 bit patterns (every finite float32 as likely as any other), no NaN or ±Infinity. */
function randomFloat32s(count: number, seed: number): Float32Array {
  const random = prng(seed);
  const values = new Float32Array(count);
  const bits = new Uint32Array(values.buffer);
  for (let i = 0; i < count; i++) {
    do bits[i] = Math.floor(random() * 2 ** 32) >>> 0;
    while (!Number.isFinite(values[i]));
  }
  return values;
}

/** Values a sample takes: EEG in µV (24-bit ADC codes × a gain's step), filtered values near 0, powers. */
function sampleLikeFloat32s(count: number, seed: number): Float32Array {
  const random = prng(seed);
  const values = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const kind = i % 4;
    if (kind === 0) values[i] = Math.round((random() - 0.5) * 2 ** 24) * 0.0223517;
    else if (kind === 1) values[i] = (random() - 0.5) * 200;
    else if (kind === 2) values[i] = (random() - 0.5) * 10 ** (random() * 12 - 6);
    else values[i] = (random() < 0.5 ? -1 : 1) * 2 ** Math.floor(random() * 60 - 30);
  }
  return values;
}

/**
 * Values at the edges: the fast range's ends (1e-4 and 1e9) and their neighbours, ties between two
 * texts of the shortest length (x.5 in the last digit), the smallest and largest numbers, small
 * integers and powers of two, where the interval below is half the one above.
 */
function edgeFloat32s(): Float32Array {
  const list: number[] = [0.1, 0.2, 0.3, 1, 2, 3, 9.5, 16777216, 16777215, 123456789, 44.5390625, 29.9765625];
  list.push(2 ** -126, 2 ** -149, 3 * 2 ** -149, 2 ** -127, 3.4028234663852886e38, 1e-45, 1e38);
  for (const edge of [1e-4, 1e9, 1e-6, 1e-7, 1e21, 1e-3, 1e8]) {
    const f = new Float32Array([edge]);
    const bits = new Uint32Array(f.buffer);
    for (let d = -3; d <= 3; d++) {
      const g = new Uint32Array([(bits[0] as number) + d]);
      list.push(new Float32Array(g.buffer)[0] as number);
    }
  }
  for (let e = -30; e <= 40; e++) list.push(2 ** e, 2 ** e * 3, 2 ** e * 5);
  // Ties: a float32 with a short exact decimal expansion, nine digits and a 5 after them.
  for (let n = 1; n < 200; n++) list.push((n * 2 + 1) / 128 + 32, (n * 2 + 1) / 1024 + 1);
  return Float32Array.from([...list, ...list.map((v) => -v)]);
}

describe('float32Text', () => {
  it('writes what numpy writes for a float32, digit for digit, over random bit patterns, sample-like values and edges', async () => {
    const values = Float32Array.from([
      ...randomFloat32s(60_000, 11),
      ...sampleLikeFloat32s(60_000, 12),
      ...edgeFloat32s(),
    ]);
    const texts = Array.from(values, float32Text);
    const differences = await callPython<[number, string, string][]>(NUMPY, 'differences', values, texts);
    expect(differences.slice(0, 10)).toEqual([]);
  });

  it('reads back as the same float32 through a double, in the notation JavaScript writes numbers in', () => {
    fc.assert(
      fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const text = float32Text(value);
        expect(Math.fround(Number(text))).toBe(value === 0 ? 0 : value);
        expect(String(Number(text))).toBe(text);
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    [0.1, '0.1'],
    [Math.fround(0.1), '0.1'],
    [-12.5, '-12.5'],
    [123456789, '123456790'],
    [44.5390625, '44.539062'],
    [1e-7, '1e-7'],
    [3.4028234663852886e38, '3.4028235e+38'],
    [-0, '0'],
    [Number.NaN, 'NaN'],
    [Number.NEGATIVE_INFINITY, '-Infinity'],
  ])('%d → %s', (value, text) => {
    expect(float32Text(value)).toBe(text);
  });
});

describe('float32JsonRows', () => {
  it('writes rows of the width as JSON arrays of float32Text, the values JSON has no number for as strings', () => {
    const values = new Float32Array([
      1.5,
      Number.NaN,
      Number.NEGATIVE_INFINITY,
      0.1,
      Number.POSITIVE_INFINITY,
      -2,
    ]);
    expect(float32JsonRows(values, 2)).toBe('[1.5,"NaN"],["-Infinity",0.1],["Infinity",-2]');
    expect(float32JsonRows(values, 3)).toBe('[1.5,"NaN","-Infinity"],[0.1,"Infinity",-2]');
    expect(float32JsonRows(values.subarray(3), 1)).toBe('[0.1],["Infinity"],[-2]');
    expect(float32JsonRows(new Float32Array(0), 4)).toBe('');
  });

  it('parses as JSON back to the same float32 rows, for any values and widths', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { maxLength: 64 }),
        (width, list) => {
          const values = Float32Array.from(list.slice(0, list.length - (list.length % width)));
          const rows = JSON.parse(`[${float32JsonRows(values, width)}]`) as number[][];
          expect(rows.every((row) => row.length === width)).toBe(true);
          expect(Float32Array.from(rows.flat())).toEqual(values.map((v) => (v === 0 ? 0 : v)));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
