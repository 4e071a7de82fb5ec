/**
 * Signal quality from impedance, 0 (unusable) .. 1 (excellent), for the `quality` events sent
 * once a second during acquisition. Log-linear between the guide's "excellent" bound (5 kΩ → 1)
 * and 100 kΩ (→ 0): 10 kΩ ≈ 0.77, 20 kΩ ≈ 0.54, 50 kΩ ≈ 0.23.
 */
import type { Electrode } from '../../core/electrodes.js';

const EXCELLENT_OHMS = 5_000;
const UNUSABLE_OHMS = 100_000;

export function qualityFromImpedance(ohms: number): number {
  const q = 1 - Math.log10(ohms / EXCELLENT_OHMS) / Math.log10(UNUSABLE_OHMS / EXCELLENT_OHMS);
  return Math.round(Math.min(1, Math.max(0, q)) * 100) / 100;
}

export function signalQuality(
  channels: readonly Electrode[],
  impedance: (electrode: Electrode) => number,
): { overall: number; channels: Record<string, number> } {
  const perChannel: Record<string, number> = {};
  let sum = 0;
  for (const electrode of channels) {
    const q = qualityFromImpedance(impedance(electrode));
    perChannel[electrode] = q;
    sum += q;
  }
  const overall = channels.length === 0 ? 0 : Math.round((sum / channels.length) * 100) / 100;
  return { overall, channels: perChannel };
}
