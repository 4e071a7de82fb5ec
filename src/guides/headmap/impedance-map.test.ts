import { describe, expect, it } from 'vitest';
import { ELECTRODES } from '../../core/electrodes.js';
import { formatKiloohms, NOSE_TIP_Y, renderHeadMapSvg, SUBTITLE_Y } from './impedance-map.js';

/** The text elements of an SVG, with their baseline and content. */
function texts(svg: string): { y: number; text: string }[] {
  return [...svg.matchAll(/<text [^>]*y="([\d.]+)"[^>]*>([^<]*)<\/text>/g)].map((m) => ({
    y: Number(m[1]),
    text: m[2] ?? '',
  }));
}

describe('the impedance head map', () => {
  const values = Object.fromEntries(ELECTRODES.map((e, i) => [e, i % 2 === 0 ? 4.2 : 25_000]));
  const svg = renderHeadMapSvg({ values, timestamp: Date.UTC(2026, 10, 26, 14, 0, 0) });

  it('keeps the nose below the subtitle, so no character of the date is covered', () => {
    const subtitle = texts(svg).find((t) => t.text.startsWith('Measured'));
    expect(subtitle?.y).toBe(SUBTITLE_Y);
    // 13 px text descends about 3 px below its baseline; the nose's stroke is 3 px wide.
    expect(NOSE_TIP_Y - 3).toBeGreaterThan(SUBTITLE_Y + 4);
    const nose = /<path d="M [\d.]+ [\d.]+ L [\d.]+ ([\d.]+) L/.exec(svg);
    expect(Number(nose?.[1])).toBe(NOSE_TIP_Y);
  });

  it('names no single unit in its title, since each label carries its own (kΩ or MΩ)', () => {
    const title = texts(svg)[0]?.text;
    expect(title).toBe('Electrode impedance');
    const labels = texts(svg).filter((t) => /^[\d.]+ [kM]Ω$/.test(t.text));
    expect(labels.map((l) => l.text)).toContain('4.20 kΩ');
    expect(labels.map((l) => l.text)).toContain('25.0 MΩ');
    expect(labels).toHaveLength(ELECTRODES.length);
  });

  it('prints MΩ from 1000 kΩ on', () => {
    expect(formatKiloohms(999)).toBe('999 kΩ');
    expect(formatKiloohms(1000)).toBe('1.00 MΩ');
  });
});
