import { describe, expect, test } from 'vitest';
import { frameUnitOf, microvoltsPerUnit } from './units.js';

describe('declared units read into frame units', () => {
  test('the symbols and words of volts, in any case, scale to µV', () => {
    expect(microvoltsPerUnit('Volts')).toBe(1e6);
    expect(microvoltsPerUnit('V')).toBe(1e6);
    expect(microvoltsPerUnit('millivolts')).toBe(1e3);
    expect(microvoltsPerUnit('mV')).toBe(1e3);
    expect(microvoltsPerUnit(' µV ')).toBe(1);
    expect(microvoltsPerUnit('μV')).toBe(1);
    expect(microvoltsPerUnit('uV')).toBe(1);
    expect(microvoltsPerUnit('microvolts')).toBe(1);
    expect(microvoltsPerUnit('nV')).toBe(1e-3);
    // An EDF header's µ in Latin-1 or UTF-8, shown byte by byte as `?`.
    expect(microvoltsPerUnit('?V')).toBe(1);
    expect(microvoltsPerUnit('??V')).toBe(1);
  });

  test('no unit and other units are not voltages', () => {
    expect(microvoltsPerUnit('')).toBeUndefined();
    expect(microvoltsPerUnit('counts')).toBeUndefined();
    expect(microvoltsPerUnit('g')).toBeUndefined();
  });

  test('in frames: a voltage in µV, no unit as µV, another unit kept as declared and unscaled', () => {
    expect(frameUnitOf('mV')).toEqual({ scale: 1e3, unit: 'µV' });
    expect(frameUnitOf('microvolts')).toEqual({ scale: 1, unit: 'µV' });
    expect(frameUnitOf('')).toEqual({ scale: 1, unit: 'µV' });
    expect(frameUnitOf(' g ')).toEqual({ scale: 1, unit: 'g' });
    expect(frameUnitOf('m/s^2')).toEqual({ scale: 1, unit: 'm/s^2' });
  });
});
