/**
 * Trigger codes kept as a data signal (a BioSemi BDF `Status` channel, an EDF `STI 014` or
 * `DIG DTRIG`), replayed as markers like the file's annotations (docs/device.md §Replay device).
 *
 * Rules, as MNE's `find_events` reads such a channel by default: a marker at each sample where the
 * code rises to a non-zero value (a step down, back to the resting code, is none; the first sample
 * is none). The code of a BDF `Status` channel is its digital value's low 16 bits (the upper bits
 * are the amplifier's status flags); of any other trigger signal, its physical value rounded. The
 * marker's text is `trigger <code>`. The signal is read once, one record at a time.
 */
import type { EdfReader, EdfSignalHeader } from '../../formats/edf-reader.js';
import type { ReplayMarker } from './replay-marker.js';

/** Labels of trigger signals (trimmed, any case). */
const TRIGGER_LABEL = /^(status|trigger|trig|stim|sti ?\d+|(dig )?d?trig)$/i;

/** The file's trigger signal: the first data signal labelled like one, if any. */
export function triggerSignal(reader: EdfReader): EdfSignalHeader | undefined {
  return reader.signals.find((s) => TRIGGER_LABEL.test(s.label.trim()));
}

/**
 * The markers of the trigger signal `signal`, at their sample of the pass (played at
 * `samplesPerRecord` samples per record), in order.
 */
export function triggerMarkers(
  reader: EdfReader,
  signal: EdfSignalHeader,
  samplesPerRecord: number,
): ReplayMarker[] {
  const status = reader.kind.format === 'bdf' && signal.label.trim().toLowerCase() === 'status';
  const scale = (signal.digitalMax - signal.digitalMin) / (signal.physicalMax - signal.physicalMin || 1);
  const code = (physical: number): number =>
    status
      ? Math.round((physical - signal.physicalMin) * scale + signal.digitalMin) & 0xffff
      : Math.round(physical);
  const onsets = reader.recordOnsets();
  const index = reader.signals.indexOf(signal);
  const perRecord = signal.samplesPerRecord;
  const markers: ReplayMarker[] = [];
  let previous: number | undefined;
  for (let r = 0; r < reader.recordCount; r++) {
    const values = reader.readSignal(index, r, 1);
    for (let i = 0; i < values.length; i++) {
      const value = code(values[i] ?? 0);
      if (previous !== undefined && value !== 0 && value > previous) {
        markers.push({
          position: r * samplesPerRecord + Math.floor((i * samplesPerRecord) / perRecord),
          onset: (onsets[r] ?? 0) + i / signal.sampleRate,
          duration: undefined,
          text: `trigger ${value}`,
        });
      }
      previous = value;
    }
  }
  return markers;
}
