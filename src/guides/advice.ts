/**
 * What to tell a person about an electrode: one concrete instruction per impedance level
 * (preparation guidance), and the verdict of a diagnosis.
 */
import { type Electrode, MIXED_CASE } from '../core/electrodes.js';
import type { ImpedanceLevel } from './headmap/impedance-levels.js';

export function instructionFor(electrode: Electrode, level: ImpedanceLevel | undefined): string {
  const name = MIXED_CASE[electrode];
  switch (level) {
    case undefined:
      return `Measure ${name} first (POST /electrodes/impedance/start), or pass its value in currentImpedance.`;
    case 'excellent':
      return `${name} is ready; leave it as it is.`;
    case 'good':
      return `${name} is good enough for recording; for clinical work press it one step further (POST /electrodes/adjust with action increase_pressure).`;
    case 'acceptable':
      return `Press ${name} one or two steps further (POST /electrodes/adjust, action increase_pressure), then wait 30 s for the contact to settle.`;
    case 'poor':
      return `Part the hair under ${name} with the electrode's tip, add a drop of saline or gel, then reseat it (POST /electrodes/adjust, action reseat).`;
    case 'very_poor':
      return `${name} does not touch the skin: lower it onto the scalp (POST /electrodes/prepare, action seat), check that no hair or band is under it, then add saline or gel.`;
  }
}

export type Verdict = 'ok' | 'noisy' | 'poor_contact' | 'no_contact' | 'motor_fault';

/** µV of mains amplitude above which a channel is called noisy. */
export const LINE_NOISE_LIMIT_UV = 20;

export function verdictFor(
  impedanceKohms: number | null,
  level: ImpedanceLevel | undefined,
  motorState: number,
  lineNoise: number | null,
): { verdict: Verdict; advice: string } {
  if (motorState === 4) {
    return {
      verdict: 'motor_fault',
      advice:
        'The motor reports a fault: reset it (POST /motors/control, action home) and power-cycle the headset if it persists.',
    };
  }
  if (impedanceKohms !== null && impedanceKohms >= 1000) {
    return {
      verdict: 'no_contact',
      advice: 'The electrode is off the scalp: seat it (POST /electrodes/prepare, action seat).',
    };
  }
  if (level === 'poor' || level === 'very_poor') {
    return {
      verdict: 'poor_contact',
      advice:
        'The contact is poor: part the hair, add saline or gel and reseat (POST /electrodes/adjust, action reseat).',
    };
  }
  if (lineNoise !== null && lineNoise > LINE_NOISE_LIMIT_UV) {
    return {
      verdict: 'noisy',
      advice: `Mains interference of ${lineNoise.toFixed(1)} µV: move away from power cables and chargers, and check the CMS and DRL contact.`,
    };
  }
  return { verdict: 'ok', advice: 'No problem found.' };
}
