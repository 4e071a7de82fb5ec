/**
 * Mapping of channel labels found in real EDF/BDF files to the headset's electrode names
 * (src/core/electrodes.ts). Real labels carry a type prefix (`EEG Fp1`, EDF+ §2.1.3.1), a
 * reference suffix (`Fp1-Ref`, `C3-A1`), dot padding (`Cz..`, PhysioNet EEGMMIDB) and 10-10 names
 * for the 10-20 temporal/parietal positions (T7 = T3, T8 = T4, P7 = T5, P8 = T6).
 */
import { type Electrode, MIXED_CASE, parseElectrode } from '../core/electrodes.js';

/** 10-10 names (Oostenveld & Praamstra 2001) of positions the 10-20 system names differently. */
const SYNONYMS: Readonly<Record<string, Electrode>> = { T7: 'T3', T8: 'T4', P7: 'T5', P8: 'T6' };

/** Type prefixes of EDF+ §2.1.3.1 labels ("EEG Fp1") and common variants ("EEG:Fp1", "EEG-Fp1"). */
const PREFIX = /^(EEG|EXG)[\s:_-]+/i;

/** Reference suffixes: common reference, ear/mastoid references, linked ears, average. */
const SUFFIX = /[\s_-]+(REF|REFERENCE|A1|A2|M1|M2|LE|AVG|AV|AR|CMS)$/i;

/**
 * The electrode a channel label names, as one of the 21 upper-case names (`FP1`, `CZ`, `T3`),
 * or undefined when the label names no electrode of the headset (EOG, ECG, `Status`, `Fpz`,
 * bipolar derivations such as `Fp1-F3`).
 */
export function matchElectrode(label: string): Electrode | undefined {
  const upper = cleanLabel(label).toUpperCase();
  return SYNONYMS[upper] ?? parseElectrode(upper);
}

/**
 * A channel label without what is not its name: the type prefix (`EEG Fp1`), dot padding (`Cz..`)
 * and the reference suffix (`Fp1-Ref`, `C3-A1`), in its own case; a label that is only a prefix or
 * a suffix stays as it came.
 */
export function cleanLabel(label: string): string {
  let name = label.trim().replace(PREFIX, '');
  name = name.replace(/\.+/g, '').trim();
  name = name.replace(SUFFIX, '').trim();
  return name === '' ? label.trim() : name;
}

/**
 * The label a recorded file gives a channel: an electrode's name in the standard 10-20 case
 * (`FP1` → `Fp1`, `CZ` → `Cz`), which EEG tools match positions against (MNE's
 * `set_montage('standard_1020')` is case-sensitive); any other name as it came. Frames already
 * name the headset's channels so (core/electrodes.ts `channelName`); this also puts a frame's
 * channels from elsewhere (an upper-case `FP1` ingested) into that form.
 */
export function recordedLabel(channel: string): string {
  const electrode = parseElectrode(channel);
  return electrode === undefined ? channel : MIXED_CASE[electrode];
}
