import { describe, expect, it } from 'vitest';
import { impedanceLevel, levelRange, toKiloohms } from './impedance-levels.js';

describe('impedance levels', () => {
  it('classifies at the guide boundaries (kΩ): <5, 5–10, 10–20, 20–50, >50', () => {
    expect([4.99, 5, 9.99, 10, 19.99, 20, 49.99, 50, 5000].map((k) => impedanceLevel(k))).toEqual([
      'excellent',
      'good',
      'good',
      'acceptable',
      'acceptable',
      'poor',
      'poor',
      'very_poor',
      'very_poor',
    ]);
  });

  it('uses configured thresholds and describes ranges', () => {
    expect(impedanceLevel(7, { excellent: 8, good: 16, acceptable: 30, poor: 60 })).toBe('excellent');
    expect(levelRange('good')).toBe('5–10 kΩ');
    expect(levelRange('very_poor')).toBe('> 50 kΩ');
    expect(toKiloohms(12_345)).toBe(12.35);
  });
});
