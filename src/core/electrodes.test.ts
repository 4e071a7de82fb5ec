import { describe, expect, it } from 'vitest';
import { ELECTRODE_POSITIONS, ELECTRODES } from './electrodes.js';

describe('electrode positions', () => {
  it('places all 21 electrodes on the head map, odd numbers left, even right, midline at x = 0', () => {
    expect(Object.keys(ELECTRODE_POSITIONS).sort()).toEqual([...ELECTRODES].sort());
    for (const electrode of ELECTRODES) {
      const { x, y } = ELECTRODE_POSITIONS[electrode];
      expect(Math.hypot(x, y), electrode).toBeLessThanOrEqual(1.11);
      const digit = /\d$/.exec(electrode)?.[0];
      if (electrode.endsWith('Z')) expect(x, electrode).toBe(0);
      else if (digit !== undefined) expect(Math.sign(x), electrode).toBe(Number(digit) % 2 === 1 ? -1 : 1);
    }
    expect(ELECTRODE_POSITIONS.FP1.y).toBeGreaterThan(ELECTRODE_POSITIONS.O1.y);
  });
});
