/** Test helper: what a recording holds per electrode, as the project's reader reads it. */
import { EdfReader } from '../../src/formats/edf-reader.js';
import { matchElectrode } from '../../src/formats/labels.js';

/** The file's physical values of each mapped electrode (the reader's whole-signal read; first label wins). */
export function fileSignals(file: string): Map<string, Float64Array> {
  const reader = EdfReader.open(file);
  try {
    const signals = new Map<string, Float64Array>();
    reader.signals.forEach((signal, index) => {
      const electrode = matchElectrode(signal.label);
      if (electrode !== undefined && !signals.has(electrode))
        signals.set(electrode, reader.readSignal(index));
    });
    return signals;
  } finally {
    reader.close();
  }
}
