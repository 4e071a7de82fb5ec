/**
 * The headset's 21 electrodes (docs/api.md §Conventions) in the headset's own order, which is
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

/**
 * The standard 10-20 spelling (`Fp1`, `Cz`, `Pz`, `T3`, `CMS`, `DRL`): answered under the guide
 * paths, and the name of an electrode's channel in everything that carries EEG data
 * (`channelName`).
 */
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

/**
 * The name of an electrode's channel wherever EEG data goes out: frames (the device's, eeg-source's,
 * quick streams'), quick-stream answers, LSL labels, EDF/BDF/CSV files and the recordings list.
 * It is the standard 10-20 form every EEG tool expects (MNE's montages match it case-sensitively);
 * only the maps and settings under /system keep the upper-case names (docs/api.md §Conventions).
 */
export function channelName(electrode: Electrode): string {
  return MIXED_CASE[electrode];
}

/** Matches a name case-insensitively (`Fp1` = `FP1`); undefined for anything else. */
export function parseElectrode(name: string): Electrode | undefined {
  return BY_UPPER.get(name.trim().toUpperCase());
}

/**
 * The headset's electrodes among channel names (a configuration's `channels`), in their order:
 * for the headset-model paths (bus registers, the guide paths, signal quality), which speak of
 * electrodes; a live amplifier's channels that name none are left out.
 */
export function electrodesAmong(names: readonly string[]): Electrode[] {
  const out: Electrode[] = [];
  for (const name of names) {
    const electrode = parseElectrode(name);
    if (electrode !== undefined) out.push(electrode);
  }
  return out;
}

export function isEegElectrode(e: Electrode): boolean {
  return e !== 'CMS' && e !== 'DRL';
}

/**
 * Approximate 2-D positions for head maps (azimuthal projection of the 10-20 system), in head
 * radii: x toward the right ear, y toward the nose, CZ at the origin, the circle through FPZ, T3,
 * OZ and T4 at radius 1. CMS and DRL sit on the mastoids, just outside that circle.
 */
export const ELECTRODE_POSITIONS: Readonly<Record<Electrode, { readonly x: number; readonly y: number }>> = {
  FP1: { x: -0.309, y: 0.951 },
  FP2: { x: 0.309, y: 0.951 },
  F7: { x: -0.809, y: 0.588 },
  F3: { x: -0.405, y: 0.532 },
  FZ: { x: 0, y: 0.5 },
  F4: { x: 0.405, y: 0.532 },
  F8: { x: 0.809, y: 0.588 },
  T3: { x: -1, y: 0 },
  C3: { x: -0.5, y: 0 },
  CZ: { x: 0, y: 0 },
  C4: { x: 0.5, y: 0 },
  T4: { x: 1, y: 0 },
  T5: { x: -0.809, y: -0.588 },
  P3: { x: -0.405, y: -0.532 },
  PZ: { x: 0, y: -0.5 },
  P4: { x: 0.405, y: -0.532 },
  T6: { x: 0.809, y: -0.588 },
  O1: { x: -0.309, y: -0.951 },
  O2: { x: 0.309, y: -0.951 },
  CMS: { x: -1.05, y: -0.35 },
  DRL: { x: 1.05, y: -0.35 },
};

/** A map keyed by electrode, holding only the electrodes asked for, in the order asked. */
export type ElectrodeMap<T> = Partial<Record<Electrode, T>>;

/** A map keyed by electrode with the mixed-case 10-20 names of the guide paths (`Fp1`, `Cz`). */
export function mixedCaseMap<T>(map: ElectrodeMap<T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const electrode of ELECTRODES) {
    const value = map[electrode];
    if (value !== undefined) out[MIXED_CASE[electrode]] = value;
  }
  return out;
}

/** Rebuilds an ordered map from an upper-case record (device events carry plain records). */
export function electrodeMapOf<T>(record: Readonly<Record<string, T>>): ElectrodeMap<T> {
  const out: ElectrodeMap<T> = {};
  for (const electrode of ELECTRODES) {
    const value = record[electrode];
    if (value !== undefined) out[electrode] = value;
  }
  return out;
}

/** The electrode at `index` of ELECTRODES (PZ = 0 .. FZ = 20); the caller has checked the range. */
export function electrodeAt(index: number): Electrode {
  return ELECTRODES[index] as Electrode;
}
