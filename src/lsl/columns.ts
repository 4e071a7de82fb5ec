/**
 * An LSL stream's columns as the reader (reader.ts) gives them: each with its label, its declared
 * unit and type, read from the stream's description (`desc/channels/channel/label`, `unit` and
 * `type`, the XDF meta-data layout that liblsl programs, LabRecorder and MNE-LSL use), and the
 * unit its samples have in the reader's blocks (formats/units.ts): a voltage scaled to µV, any
 * other unit kept as declared, no unit taken as µV. What a column is called in frames is the
 * reader's user's choice (the LSL device cleans and maps labels, `lsl-inlet` keeps them).
 */
import { frameUnitOf } from '../formats/units.js';
import type { ResolvedStream } from './resolver.js';

export interface LslColumn {
  /** The stream's label for the column (trimmed), `ch<n>` (its column, from 1) when it has none. */
  readonly label: string;
  /** The unit the stream declares for it (trimmed; `''` when it declares none). */
  readonly declaredUnit: string;
  /** The type the stream declares for it (`EEG`, `ACC`; `''` when it declares none). */
  readonly declaredType: string;
  /** The unit of its samples in the reader's blocks: `µV` for a voltage or no unit, else `declaredUnit`. */
  readonly unit: string;
  /** Multiplier from the stream's values to `unit`. */
  readonly scale: number;
}

/** The stream's columns, in order. */
export function lslColumns(stream: ResolvedStream): LslColumn[] {
  return Array.from({ length: stream.channelCount }, (_, c) => {
    const description = stream.channels[c];
    const label = description?.label.trim() ?? '';
    const declaredUnit = description?.unit?.trim() ?? '';
    return {
      label: label === '' ? `ch${c + 1}` : label,
      declaredUnit,
      declaredType: description?.type?.trim() ?? '',
      ...frameUnitOf(declaredUnit),
    };
  });
}
