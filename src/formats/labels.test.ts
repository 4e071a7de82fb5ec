import { describe, expect, it } from 'vitest';
import { EdfReader } from './edf-reader.js';
import { matchElectrode, recordedLabel } from './labels.js';
import { EDF_FIXTURES, fixture } from '../../test/formats/fixtures.js';

/** Every data-signal label of a fixture, mapped. */
function mapped(name: string): Record<string, string | undefined> {
  const r = EdfReader.open(fixture(name));
  const out = Object.fromEntries(r.signals.map((s) => [s.label, matchElectrode(s.label)]));
  r.close();
  return out;
}

/** Only the matched labels. */
function matchedOnly(name: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(mapped(name)).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

describe('matchElectrode', () => {
  it('maps the "EEG " prefixed 10-20 labels of the plain EDF fixture, and nothing else', () => {
    expect(matchedOnly('test_edf_stim_channel.edf')).toEqual({
      'EEG Fp1': 'FP1',
      'EEG Fp2': 'FP2',
      'EEG F7': 'F7',
      'EEG F3': 'F3',
      'EEG Fz': 'FZ',
      'EEG F4': 'F4',
      'EEG F8': 'F8',
      'EEG T3': 'T3',
      'EEG C3': 'C3',
      'EEG Cz': 'CZ',
      'EEG C4': 'C4',
      'EEG T4': 'T4',
      'EEG T5': 'T5',
      'EEG P3': 'P3',
      'EEG Pz': 'PZ',
      'EEG P4': 'P4',
      'EEG T6': 'T6',
      'EEG O1': 'O1',
      'EEG O2': 'O2',
    });
  });

  it('maps the dot-padded 10-10 labels of the PhysioNet fixture, with T7/T8/P7/P8 synonyms', () => {
    expect(matchedOnly('S002R01.edf')).toEqual({
      'C3..': 'C3',
      'Cz..': 'CZ',
      'C4..': 'C4',
      'Fp1.': 'FP1',
      'Fp2.': 'FP2',
      'F7..': 'F7',
      'F3..': 'F3',
      'Fz..': 'FZ',
      'F4..': 'F4',
      'F8..': 'F8',
      'T7..': 'T3',
      'T8..': 'T4',
      'P7..': 'T5',
      'P3..': 'P3',
      'Pz..': 'PZ',
      'P4..': 'P4',
      'P8..': 'T6',
      'O1..': 'O1',
      'O2..': 'O2',
    });
  });

  it('maps the BioSemi 10-10 labels to all 19 EEG electrodes', () => {
    const m = matchedOnly('biosemi_test.bdf');
    expect(Object.keys(m)).toHaveLength(19);
    expect(new Set(Object.values(m)).size).toBe(19);
    expect(m).toMatchObject({ T7: 'T3', T8: 'T4', P7: 'T5', P8: 'T6', Fp1: 'FP1', Pz: 'PZ' });
  });

  it('maps the three electrodes of the small BDF and not its Status channel', () => {
    expect(mapped('test_bdf_stim_channel.bdf')).toEqual({ C3: 'C3', C4: 'C4', Cz: 'CZ', Status: undefined });
  });

  it('leaves non-electrode labels of every fixture unmatched', () => {
    const all = EDF_FIXTURES.flatMap((f) => Object.entries(mapped(f)));
    for (const label of [
      'EOG VEOG_I',
      'REF_EEG REF_EEG',
      'ECG ECG1',
      'DIG DTRIG',
      'Fpz.',
      'Iz..',
      'EXG1',
      'M1',
      'Status',
    ]) {
      expect(all.find(([l]) => l === label)?.[1]).toBeUndefined();
    }
  });

  it.each([
    ['EEG Fp1-Ref', 'FP1'],
    ['Fp1-REF', 'FP1'],
    ['C3-A1', 'C3'],
    ['c4-a2', 'C4'],
    ['EEG T7-LE', 'T3'],
    ['  cz  ', 'CZ'],
    ['O2-M1', 'O2'],
    ['cms', 'CMS'],
    ['Fp1-F3', undefined],
    ['Fpz', undefined],
    ['EEG', undefined],
    ['', undefined],
  ])('%s → %s', (label, electrode) => {
    expect(matchElectrode(label)).toBe(electrode);
  });
});

describe('recordedLabel', () => {
  it('writes electrodes in 10-20 case and leaves other names alone', () => {
    expect(['FP1', 'fp2', 'CZ', 'PZ', 'O1', 'T3', 'CMS'].map(recordedLabel)).toEqual([
      'Fp1',
      'Fp2',
      'Cz',
      'Pz',
      'O1',
      'T3',
      'CMS',
    ]);
    expect(['ch1', 'EOG', 'Fpz', 'CZ-REF'].map(recordedLabel)).toEqual(['ch1', 'EOG', 'Fpz', 'CZ-REF']);
  });
});
