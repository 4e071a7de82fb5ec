import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodeTal,
  encodeTimeKeepingTal,
  formatTicks,
  parseTals,
  sanitizeTalText,
  truncateUtf8,
} from './edf-tal.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('TAL codec (EDF+ §2.2)', () => {
  it('parses the spec examples: time-keeping TAL, durations, several texts per TAL', () => {
    const record = bytes(
      '+180\x14\x14\x00+180\x1525.5\x14Apnea\x14\x00+3.5\x14Lights off\x14Close door\x14\x00\x00\x00',
    );
    expect(parseTals(record)).toEqual({
      tals: [
        { onset: 180, duration: undefined, texts: [''] },
        { onset: 180, duration: 25.5, texts: ['Apnea'] },
        { onset: 3.5, duration: undefined, texts: ['Lights off', 'Close door'] },
      ],
      skipped: 0,
    });
  });

  it('skips malformed TALs and counts them', () => {
    const { tals, skipped } = parseTals(
      bytes('+0\x14\x14\x00garbage\x00+1x\x14a\x14\x00+2\x15-1\x14b\x14\x00+3\x14ok\x14\x00'),
    );
    expect(tals.map((t) => t.texts)).toEqual([[''], ['ok']]);
    expect(skipped).toBe(3);
  });

  it('formats ticks with the fewest decimals', () => {
    expect(formatTicks(0)).toBe('0');
    expect(formatTicks(25_000_000)).toBe('2.5');
    expect(formatTicks(1)).toBe('0.0000001');
    expect(formatTicks(-12_345_000)).toBe('-1.2345');
    expect(new TextDecoder().decode(encodeTimeKeepingTal(625_000))).toBe('+0.0625\x14\x14\x00');
  });

  it('round-trips onset, duration and UTF-8 text', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e15, max: 1e15 }),
        fc.option(fc.integer({ min: 0, max: 1e15 }), { nil: undefined }),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        (onset, duration, text) => {
          const clean = sanitizeTalText(text);
          const [tal] = parseTals(encodeTal(onset, duration, [clean])).tals;
          expect(tal?.onset).toBeCloseTo(onset / 1e7, 7);
          if (duration === undefined) expect(tal?.duration).toBeUndefined();
          else expect(tal?.duration).toBeCloseTo(duration / 1e7, 7);
          expect(tal?.texts).toEqual([clean]);
        },
      ),
    );
  });

  it('removes the separators a text may not contain, and cuts UTF-8 on a character boundary', () => {
    expect(sanitizeTalText('a\x14b\x15c\x00d\ne')).toBe('a b c d e');
    expect(truncateUtf8('ééé', 5)).toBe('éé');
    expect(truncateUtf8('abc', 3)).toBe('abc');
  });
});
