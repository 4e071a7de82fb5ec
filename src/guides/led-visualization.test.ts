import { describe, expect, test } from 'vitest';
import { batteryHealth } from '../platform/metrics/battery-health.js';
import { worstLevel } from './led-visualization.js';

const thresholds = { excellent: 10, good: 50, acceptable: 100, poor: 200 };

describe('worstLevel', () => {
  test('is the level of the highest impedance among the values', () => {
    expect(worstLevel({ O1: 5, O2: 40 }, thresholds)).toBe('good');
    expect(worstLevel({ O1: 5, O2: 150, CZ: 60 }, thresholds)).toBe('poor');
    expect(worstLevel({ FZ: 5000 }, thresholds)).toBe('very_poor');
  });
  test('is undefined when nothing was measured', () => {
    expect(worstLevel({}, thresholds)).toBeUndefined();
  });
});

describe('batteryHealth', () => {
  test.each([
    [100, 100, 'good'],
    [80, 100, 'good'],
    [79, 100, 'fair'],
    [60, 100, 'fair'],
    [59, 100, 'poor'],
    [50, 0, 'good'],
  ] as const)('%i of %i designed → %s', (max, designed, health) => {
    expect(batteryHealth(max, designed)).toBe(health);
  });
});
