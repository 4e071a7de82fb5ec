import { describe, expect, it } from 'vitest';
import { closestName, editDistance } from './closest-name.js';

describe('closestName', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('smaplerate', 'samplerate')).toBe(1);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('finds the allowed name behind a dropped, doubled, swapped or wrong letter, any case', () => {
    const known = ['sampleRate', 'amplitudes', 'frequencies', 'channels'];
    for (const typo of ['sampleRte', 'sampleRatte', 'smapleRate', 'samplerate', 'SAMPLERATE', 'sampleRata'])
      expect(closestName(typo, known)).toBe('sampleRate');
    expect(closestName('frequency', known)).toBe('frequencies');
  });

  it('guesses nothing for a name far from every candidate', () => {
    expect(closestName('colour', ['id', 'meta', 'nodes', 'pipes'])).toBeUndefined();
    expect(closestName('x'.repeat(1000), ['x'])).toBeUndefined();
  });
});
