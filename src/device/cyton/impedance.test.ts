import { describe, expect, test } from 'vitest';
import { leadOffAmplitudeMicrovolts, leadOffImpedance, toneStd } from './impedance.js';
import { LEAD_OFF_HZ, PACKET_RATE } from './protocol.js';

const tone = (n: number, rate: number, amplitude: number, phase = 0.3, offset = 0): number[] =>
  Array.from(
    { length: n },
    (_, i) => offset + amplitude * Math.sin((2 * Math.PI * LEAD_OFF_HZ * i) / rate + phase),
  );

describe('lead-off impedance', () => {
  test('the std of the drive-frequency component of a sine is its amplitude / √2, whatever the offset', () => {
    expect(toneStd(tone(250, 250, 10, 1.1, 5000), 250, LEAD_OFF_HZ)).toBeCloseTo(10 / Math.SQRT2, 9);
  });

  test('Z = √2·σ / 6 nA − 2.2 kΩ: the amplitude the board reads at 10 kΩ gives back 10 kΩ', () => {
    const a = leadOffAmplitudeMicrovolts(10_000);
    expect(a).toBeCloseTo(73.2, 9);
    expect(leadOffImpedance(tone(250, PACKET_RATE, a), PACKET_RATE)).toBeCloseTo(10_000, 3);
  });

  test('with a Daisy, the two-sample mean the board sends is corrected for', () => {
    const a = leadOffAmplitudeMicrovolts(5_000);
    // The board's 250 Hz samples, averaged in pairs and sent at 125 Hz.
    const fine = tone(502, 250, a);
    const sent = Array.from(
      { length: 250 },
      (_, k) => ((fine[2 * k + 1] as number) + (fine[2 * k + 2] as number)) / 2,
    );
    expect(leadOffImpedance(sent, 125)).toBeCloseTo(5_000, 3);
  });

  test('rows lost inside the window do not shrink the impedance: each sample is fitted at its row number', () => {
    const a = leadOffAmplitudeMicrovolts(20_000);
    const all = tone(160, PACKET_RATE, a);
    // One row missing in the middle: closing the gap shifts the second half by 45°.
    const kept = all.flatMap((v, i) => (i === 80 ? [] : [v]));
    const indices = all.flatMap((_, i) => (i === 80 ? [] : [i]));
    expect(leadOffImpedance(kept, PACKET_RATE)).toBeLessThan(19_000);
    expect(leadOffImpedance(kept, PACKET_RATE, indices)).toBeCloseTo(20_000, 3);
  });

  test('never below zero', () => {
    expect(leadOffImpedance(tone(250, 250, 1), 250)).toBe(0);
  });
});
