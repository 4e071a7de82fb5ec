import { describe, expect, it } from 'vitest';
import { sampleInstant, samplesDue } from './sample-clock.js';

describe('sample clock', () => {
  it('counts sample 0 at the start and sample k at its own instant', () => {
    expect(samplesDue(100, 100, 250)).toBe(1);
    expect(samplesDue(100, 103.999, 250)).toBe(1);
    expect(samplesDue(100, 104, 250)).toBe(2);
    expect(samplesDue(0, 1000, 250)).toBe(251);
  });

  it('puts every instant it computes on its own sample, at rates whose period is not exact', () => {
    for (const rate of [250, 300, 500, 512, 1000, 2000, 44100 / 3]) {
      for (let k = 0; k < 5000; k += 7) {
        expect(samplesDue(12.345, sampleInstant(12.345, k, rate), rate)).toBe(k + 1);
      }
    }
  });
});
