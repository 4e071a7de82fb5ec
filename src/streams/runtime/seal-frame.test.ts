import { describe, expect, test } from 'vitest';
import type { Frame } from '../../core/frame.js';
import { PortSequencer } from './seal-frame.js';
import { toWire } from '../../core/frame-wire.js';

describe('frame fields across the runtime', () => {
  test('lostSamples (rows a device lost before the frame) survives sealing and the thread boundary, like range', () => {
    const frame: Frame = {
      seq: 9,
      timestamp: 1_700_000_000_000,
      sampleRate: 250,
      channels: ['FP1'],
      data: Float32Array.of(1, 2),
      discontinuity: true,
      range: 187_500,
      lostSamples: 7,
    };
    const sealed = new PortSequencer().seal('out', frame);
    expect(sealed).toMatchObject({ seq: 0, discontinuity: true, range: 187_500, lostSamples: 7 });
    expect(toWire(sealed)).toMatchObject({ discontinuity: true, range: 187_500, lostSamples: 7 });
    const { lostSamples: _, ...without } = frame;
    const plain = new PortSequencer().seal('out', without);
    expect('lostSamples' in plain).toBe(false);
  });

  test('units survive sealing (frozen) and the thread boundary; a list of the wrong length is refused at the emitting node', () => {
    const frame: Frame = {
      seq: 0,
      timestamp: 1_700_000_000_000,
      sampleRate: 4,
      channels: ['O1.alpha', 'O1.alphaDb'],
      units: ['µV²', 'dB'],
      data: Float32Array.of(1, 2),
    };
    const sealed = new PortSequencer().seal('out', frame);
    expect(sealed.units).toEqual(['µV²', 'dB']);
    expect(Object.isFrozen(sealed.units)).toBe(true);
    expect(toWire(sealed).units).toEqual(['µV²', 'dB']);
    const { units: _units, ...allMicrovolts } = frame;
    expect('units' in toWire(new PortSequencer().seal('out', allMicrovolts))).toBe(false);
    expect(() => new PortSequencer().seal('out', { ...frame, units: ['dB'] })).toThrow(
      /units has 1 entries for 2 channels/,
    );
  });
});
