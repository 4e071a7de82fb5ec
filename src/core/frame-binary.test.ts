import { describe, expect, test } from 'vitest';
import type { Frame } from './frame.js';
import { decodeFrameBinary, encodeFrameBinary } from './frame-binary.js';

describe('binary frame codec', () => {
  const frame: Frame = {
    seq: 2 ** 40 + 3,
    timestamp: 1_763_700_000_123.5,
    sampleRate: 250,
    channels: ['Fp1', 'Cz', 'Ω-electrode'],
    data: Float32Array.from([1, 2, 3, -4.5, 0.25, 1e-7]),
    discontinuity: true,
  };

  test('round-trips every field', () => {
    const decoded = decodeFrameBinary(encodeFrameBinary(frame));
    expect(decoded).toEqual(frame);
  });

  test('carries units (flag bit 1, after the names), and a reader that skips to H still finds the samples', () => {
    const withUnits: Frame = { ...frame, units: ['µV', 'µV²', 'm/s^2'] };
    const bytes = encodeFrameBinary(withUnits);
    const view = new DataView(bytes.buffer);
    expect(view.getUint8(5)).toBe(1 | 2);
    expect(decodeFrameBinary(bytes)).toEqual(withUnits);
    const header = view.getUint32(12, true);
    expect(Array.from(new Float32Array(bytes.buffer.slice(header)))).toEqual(Array.from(frame.data));
    // The next frame without units is encoded without them (the names' cache knows the difference).
    expect(decodeFrameBinary(encodeFrameBinary(frame))).toEqual(frame);
  });

  test('carries NaN and ±Infinity as the float32 values they are', () => {
    const special = { ...frame, data: Float32Array.from([Number.NaN, Infinity, -Infinity, 0, -0, 1]) };
    const bytes = encodeFrameBinary(special);
    const decoded = decodeFrameBinary(bytes).data;
    expect(Array.from(decoded.subarray(0, 3))).toEqual([Number.NaN, Infinity, -Infinity]);
    expect(Object.is(decoded[4], -0)).toBe(true);
  });

  test('follows the documented layout', () => {
    const bytes = encodeFrameBinary(frame);
    const view = new DataView(bytes.buffer);
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe('HSF1');
    expect(view.getUint8(4)).toBe(1);
    expect(view.getUint8(5)).toBe(1);
    expect(view.getUint16(6, true)).toBe(3);
    expect(view.getUint32(8, true)).toBe(2);
    const header = view.getUint32(12, true);
    expect(header % 4).toBe(0);
    expect(bytes.length).toBe(header + 6 * 4);
    expect(view.getFloat64(16, true)).toBe(frame.seq);
    expect(view.getFloat64(32, true)).toBe(250);
    // Samples are 4-byte aligned and readable in place.
    expect(Array.from(new Float32Array(bytes.buffer, header, 6))).toEqual(Array.from(frame.data));
  });

  test('no discontinuity flag when absent; truncated input is refused', () => {
    const { discontinuity: _, ...plain } = frame;
    const bytes = encodeFrameBinary(plain);
    expect(decodeFrameBinary(bytes).discontinuity).toBeUndefined();
    expect(() => decodeFrameBinary(bytes.subarray(0, bytes.length - 1))).toThrow(RangeError);
  });

  test('frames whose channel lists change from one to the next each carry their own names', () => {
    const lists = [['Fp1', 'Fp2'], ['Fp1', 'Fp3'], ['Cz'], [], ['Fp1', 'Fp2'], ['Ω1', 'Fp2']];
    for (const channels of lists) {
      const frame: Frame = {
        seq: 1,
        timestamp: 2,
        sampleRate: 250,
        channels,
        data: Float32Array.from(channels, (_, c) => c + 0.5),
      };
      const decoded = decodeFrameBinary(encodeFrameBinary(frame));
      expect(decoded.channels).toEqual(channels);
      expect([...decoded.data]).toEqual([...frame.data]);
    }
  });
});
