/**
 * The headset's 21 electrodes (REFERENCE.md §Electrode names) in the reference's order, which is
 * also the order of indices on the peripheral bus and the hardware-variant paths.
 *
 * `CMS` (common mode sense, the reference) and `DRL` (driven right leg) have motors and impedance
 * but no EEG channel of their own, so the headset records 19 EEG channels.
 */
export const ELECTRODES = [
  'PZ',
  'O1',
  'O2',
  'P3',
  'P4',
  'T5',
  'T6',
  'C3',
  'C4',
  'T3',
  'T4',
  'CMS',
  'DRL',
  'CZ',
  'F7',
  'F8',
  'F3',
  'F4',
  'FP1',
  'FP2',
  'FZ',
] as const;

export type Electrode = (typeof ELECTRODES)[number];

/** Electrodes that carry an EEG channel: all but CMS and DRL, in the order above. */
export const EEG_ELECTRODES: readonly Electrode[] = ELECTRODES.filter((e) => e !== 'CMS' && e !== 'DRL');

/** The mixed-case 10-20 spelling answered under the guide paths (`Fp1`, `Cz`, `CMS`). */
export const MIXED_CASE: Readonly<Record<Electrode, string>> = {
  PZ: 'Pz',
  O1: 'O1',
  O2: 'O2',
  P3: 'P3',
  P4: 'P4',
  T5: 'T5',
  T6: 'T6',
  C3: 'C3',
  C4: 'C4',
  T3: 'T3',
  T4: 'T4',
  CMS: 'CMS',
  DRL: 'DRL',
  CZ: 'Cz',
  F7: 'F7',
  F8: 'F8',
  F3: 'F3',
  F4: 'F4',
  FP1: 'Fp1',
  FP2: 'Fp2',
  FZ: 'Fz',
};

const BY_UPPER = new Map<string, Electrode>(ELECTRODES.map((e) => [e, e]));

/** Matches a name case-insensitively (`Fp1` = `FP1`); undefined for anything else. */
export function parseElectrode(name: string): Electrode | undefined {
  return BY_UPPER.get(name.trim().toUpperCase());
}

export function isEegElectrode(e: Electrode): boolean {
  return e !== 'CMS' && e !== 'DRL';
}
