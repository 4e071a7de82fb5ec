/**
 * Paths of the real EEG recordings the tests read, kept in the repository under test/fixtures/eeg
 * (their sources, licences, checksums and trimming are in the README there).
 */
import { resolve } from 'node:path';

export const FIXTURE_DIR = resolve(import.meta.dirname, '../fixtures/eeg');

export const fixture = (name: string): string => resolve(FIXTURE_DIR, name);

export const EDF_FIXTURES = [
  'test_edf_stim_channel.edf',
  'test_bdf_stim_channel.bdf',
  'biosemi_test.bdf',
  'S002R01.edf',
] as const;

/** |a − b| within `relative` of |b| (or of 1 physical unit for values near 0). */
export function closeTo(a: number, b: number, relative = 1e-6): boolean {
  return Math.abs(a - b) <= relative * Math.max(Math.abs(b), 1);
}
