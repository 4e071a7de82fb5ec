/**
 * What the replay device plays from a recording: the file's EEG channels mapped to the headset's
 * electrodes, their scale to µV, the playback rate and the positions where the recording is not
 * continuous. Built once when the device is created, from the header alone (plus, for EDF+D/BDF+D,
 * the time-keeping annotations of every record); samples are read later, on demand (./sample-cursor.ts).
 *
 * Mapping rules (docs/device.md §Replay device):
 * - a signal maps by its label through `matchElectrode` (case-insensitive; `EEG ` prefixes, `-Ref`
 *   suffixes, dot padding, 10-10 synonyms T7/T8/P7/P8); CMS and DRL have no EEG channel and are
 *   not mapped; unmatched signals are dropped; the first signal naming an electrode wins;
 * - mapped signals must have one sample rate: when they differ, the rate most of them share
 *   (ties: the first mapped signal's) is kept and the others are dropped with a warning;
 * - physical dimensions nV, uV/µV, mV and V are scaled to µV (formats/units.ts); any other makes
 *   the file refused;
 * - a file with no mapped signal is refused, naming the labels it has.
 *
 * What is played (docs/device.md §Replay device): the recorded samples only. An EDF+/BDF+ file
 * whose annotation `Recording ends` falls inside its last data record ends there, and the rest of
 * that record (the writer's padding) is not played. Every other annotation of the file is a
 * marker, replayed when playback reaches its sample (./replay-source.ts, ./replay-headset.ts), and
 * so is each rise of a trigger signal's code (./triggers.ts).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { HeadsetdError } from '../../core/errors.js';
import { type EdfHeader, EdfReader, type EdfSignalHeader } from '../../formats/edf-reader.js';
import { FormatError } from '../../formats/format-error.js';
import { matchElectrode } from '../../formats/labels.js';
import { microvoltsPerUnit } from '../../formats/units.js';
import { triggerMarkers, triggerSignal } from './triggers.js';
import type { ReplayMarker } from './replay-marker.js';
import { EEG_ELECTRODES, type Electrode, isEegElectrode } from '../../core/electrodes.js';
import { errorMessage } from '../../core/error-message.js';

export type { ReplayMarker };

/** One file signal played as one electrode's channel. */
export interface ReplayChannel {
  readonly electrode: Electrode;
  /** The signal's label as written in the file (trimmed). */
  readonly label: string;
  /** The signal's physical dimension as written in the file (trimmed). */
  readonly unit: string;
  /** Multiplier from the file's physical unit to µV. */
  readonly toMicrovolts: number;
  /** The signal's header, for reading its samples. */
  readonly signal: EdfSignalHeader;
}

/** A file signal the replay device does not play, and why (a sentence). */
export interface DroppedSignal {
  readonly label: string;
  readonly reason: string;
}

/** What the replay device tells about the file it plays (`ReplayHeadset.recording`). */
export interface ReplayRecordingInfo {
  /** Absolute path of the file. */
  readonly path: string;
  readonly fileName: string;
  /** `edf` or `bdf`, and `plain`, `continuous` (EDF+C/BDF+C) or `discontinuous` (EDF+D/BDF+D). */
  readonly format: 'edf' | 'bdf';
  readonly variant: 'plain' | 'continuous' | 'discontinuous';
  /** The playback rate: the mapped signals' own rate, Hz. */
  readonly sampleRate: number;
  /** Samples per channel in one pass of the file (a loop). */
  readonly samples: number;
  /** Seconds of one pass (samples / rate; gaps of EDF+D not counted). */
  readonly durationSeconds: number;
  /** Samples per channel of padding after `Recording ends` in the last record, not played. */
  readonly paddingSamples: number;
  /** Annotations replayed as markers, once per pass. */
  readonly markers: number;
  /** The played channels, in the device's electrode order. */
  readonly channels: readonly { electrode: Electrode; label: string; unit: string }[];
  /** Labels of the file's data signals that are not played. */
  readonly droppedLabels: readonly string[];
  /** The same signals, each with the reason it is not played, in file order. */
  readonly dropped: readonly DroppedSignal[];
  /** Tolerated flaws of the file and dropped duplicates, one sentence each. */
  readonly warnings: readonly string[];
}

/** The file read for replay: its header, the mapped channels and where the playback jumps. */
export interface ReplayRecording {
  readonly header: EdfHeader;
  /** Mapped channels in the device's electrode order (EEG_ELECTRODES). */
  readonly channels: readonly ReplayChannel[];
  readonly sampleRate: number;
  readonly samplesPerRecord: number;
  readonly recordCount: number;
  /** Samples per channel of one pass: the recorded ones, without the last record's padding. */
  readonly samples: number;
  /** The file's annotations (but `Recording ends`), by their sample in the pass, in order. */
  readonly markers: readonly ReplayMarker[];
  /**
   * Records (index > 0) whose first sample does not follow the previous record in time (EDF+D
   * gaps): playback flags a discontinuity there.
   */
  readonly gapRecords: ReadonlySet<number>;
  readonly info: ReplayRecordingInfo;
}

function refuse(message: string, details?: Record<string, unknown>): never {
  throw new HeadsetdError('validation_failed', message, details);
}

/** The rate most mapped signals share; ties go to the earliest signal's rate. */
function prevailingRate(signals: readonly EdfSignalHeader[]): number {
  const counts = new Map<number, number>();
  for (const s of signals) counts.set(s.sampleRate, (counts.get(s.sampleRate) ?? 0) + 1);
  let best = signals[0]?.sampleRate ?? 0;
  for (const [rate, count] of counts) if (count > (counts.get(best) ?? 0)) best = rate;
  return best;
}

/** Maps the reader's data signals to electrodes; refuses a file with none or with an unknown unit. */
function mapChannels(
  reader: EdfReader,
  warnings: string[],
): { channels: ReplayChannel[]; dropped: DroppedSignal[] } {
  const dropped: (DroppedSignal & { index: number })[] = [];
  const byElectrode = new Map<Electrode, EdfSignalHeader>();
  for (const signal of reader.signals) {
    const electrode = matchElectrode(signal.label);
    const label = signal.label.trim();
    if (electrode === undefined || !isEegElectrode(electrode)) {
      dropped.push({
        label,
        index: signal.index,
        reason:
          electrode === undefined
            ? "names none of the headset's 19 EEG electrodes"
            : `names ${electrode}, which has no EEG channel on the headset`,
      });
      continue;
    }
    const first = byElectrode.get(electrode);
    if (first !== undefined) {
      const reason = `names ${electrode} like "${first.label.trim()}" before it; only the first is played`;
      warnings.push(`signal "${label}" ${reason}`);
      dropped.push({ label, index: signal.index, reason });
      continue;
    }
    byElectrode.set(electrode, signal);
  }
  if (byElectrode.size === 0) {
    const labels = reader.signals.map((s) => s.label.trim());
    refuse(
      `${reader.path} has no channel the headset can play: none of its labels (${labels.map((l) => JSON.stringify(l)).join(', ') || 'none'}) names one of the EEG electrodes ${EEG_ELECTRODES.join(', ')} (10-20 names, 10-10 T7/T8/P7/P8 accepted).`,
      { labels },
    );
  }
  const rate = prevailingRate([...byElectrode.values()].sort((a, b) => a.index - b.index));
  const channels: ReplayChannel[] = [];
  for (const electrode of EEG_ELECTRODES) {
    const signal = byElectrode.get(electrode);
    if (signal === undefined) continue;
    const label = signal.label.trim();
    if (signal.sampleRate !== rate) {
      const reason = `runs at ${signal.sampleRate} Hz, not at the ${rate} Hz of the other EEG channels`;
      warnings.push(`signal "${label}" ${reason}; it is not played`);
      dropped.push({ label, index: signal.index, reason });
      continue;
    }
    const unit = signal.physicalDimension.trim();
    const toMicrovolts = microvoltsPerUnit(unit);
    if (toMicrovolts === undefined) {
      refuse(
        `${reader.path}: signal "${label}" (${electrode}) is in ${JSON.stringify(unit)}, not a voltage unit the replay device knows; use nV, uV (µV), mV or V.`,
        { label, unit, allowed: ['nV', 'uV', 'µV', 'mV', 'V'] },
      );
    }
    channels.push({ electrode, label, unit, toMicrovolts, signal });
  }
  dropped.sort((a, b) => a.index - b.index);
  return { channels, dropped: dropped.map(({ label, reason }) => ({ label, reason })) };
}

/** What a file that is not EDF/BDF most likely is, from its first bytes, to name it in the refusal. */
function guessKind(head: Buffer): string | undefined {
  const text = head.toString('latin1');
  if (text.startsWith('PK')) return 'a ZIP archive';
  if (head[0] === 0x1f && head[1] === 0x8b) return 'a gzip archive (decompress it first)';
  if (text.startsWith('\x89HDF')) return 'an HDF5 file';
  if (text.startsWith('MATLAB')) return 'a MATLAB file';
  if (/^\s*[[{]/.test(text)) return 'JSON text';
  if (/^[\t\n\r -~]+$/.test(text)) return /[,;\t]/.test(text) ? 'CSV or other text' : 'text';
  return undefined;
}

/**
 * Refuses a file that is not EDF or BDF before its header is parsed, saying so plainly: an EDF
 * file begins with "0" and spaces (its version field), a BDF file with the byte 0xFF and
 * "BIOSEMI". A CSV or FIF file would otherwise be refused for a header field it does not have.
 */
function assertEdfOrBdf(path: string): void {
  let head: Buffer;
  try {
    const fd = openSync(path, 'r');
    try {
      head = Buffer.alloc(64);
      head = head.subarray(0, readSync(fd, head, 0, 64, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    // Missing, unreadable, a directory: EdfReader.open says which, with the system's reason.
    return;
  }
  const edf = head.subarray(0, 8).toString('latin1') === '0       ';
  const bdf = head[0] === 0xff && head.subarray(1, 8).toString('latin1') === 'BIOSEMI';
  if (edf || bdf) return;
  const kind = guessKind(head.subarray(0, 32));
  refuse(
    `${path} is not an EDF or BDF file${kind === undefined ? '' : ` (it looks like ${kind})`}: the replay device plays EDF, EDF+, BDF and BDF+ recordings only, and such a file begins with "0" and seven spaces (EDF) or the byte 0xFF and "BIOSEMI" (BDF). Convert the recording first (for example with MNE: mne.export.export_raw("out.edf", raw)).`,
    { path, format: 'unknown', accepted: ['EDF', 'EDF+', 'BDF', 'BDF+'] },
  );
}

/** Records after a gap in an EDF+D/BDF+D file (onset later than the previous record's end). */
function findGaps(reader: EdfReader): Set<number> {
  const gaps = new Set<number>();
  if (reader.kind.variant !== 'discontinuous') return gaps;
  const onsets = reader.recordOnsets();
  const duration = reader.header.recordDuration;
  const first = reader.signals[0];
  // Half a sample of slack: onsets are written to finite precision.
  const slack = first === undefined ? 1e-6 : 0.5 / first.sampleRate;
  for (let r = 1; r < onsets.length; r++) {
    if (Math.abs((onsets[r] ?? 0) - ((onsets[r - 1] ?? 0) + duration)) > slack) gaps.add(r);
  }
  return gaps;
}

/**
 * Reads `file`'s header (and an EDF+D file's record onsets) for replay; the file is closed again.
 * Throws `HeadsetdError('validation_failed')` when the file cannot be
 * read, holds no data record, has no channel the headset can play, or a played channel's unit is
 * not a voltage.
 */
export function openRecording(file: string): ReplayRecording {
  const path = resolve(file);
  assertEdfOrBdf(path);
  let reader: EdfReader;
  try {
    reader = EdfReader.open(path);
  } catch (error) {
    if (error instanceof FormatError) refuse(error.message, error.details);
    const reason = errorMessage(error);
    refuse(`Cannot open the recording to replay (${path}): ${reason}.`);
  }
  try {
    return describe(path, reader);
  } catch (error) {
    if (error instanceof FormatError) refuse(error.message, error.details);
    throw error;
  } finally {
    reader.close();
  }
}

/**
 * The sample of the pass at `seconds` from the first sample (EDF+D: through the records' onsets; a
 * time inside a gap goes to the first sample after it), or undefined past the file's end.
 */
function positionAt(
  seconds: number,
  onsets: Float64Array,
  recordDuration: number,
  samplesPerRecord: number,
): number | undefined {
  for (let r = 0; r < onsets.length; r++) {
    const start = onsets[r] ?? 0;
    if (seconds < start) return r * samplesPerRecord;
    if (seconds < start + recordDuration) {
      const within = Math.round(((seconds - start) / recordDuration) * samplesPerRecord);
      return r * samplesPerRecord + Math.min(within, samplesPerRecord);
    }
  }
  const last = onsets.length - 1;
  // The end of the last record itself (a `Recording ends` after a full record).
  if (last >= 0 && Math.abs(seconds - ((onsets[last] ?? 0) + recordDuration)) < 1e-9) {
    return onsets.length * samplesPerRecord;
  }
  return undefined;
}

/**
 * The samples of a pass and the markers: `Recording ends` inside the last record cuts the pass
 * there (the rest is the writer's padding); the other annotations become markers.
 */
function playback(
  reader: EdfReader,
  samplesPerRecord: number,
  warnings: string[],
): { samples: number; markers: ReplayMarker[] } {
  const total = samplesPerRecord * reader.recordCount;
  const trigger = triggerSignal(reader);
  const triggers = trigger === undefined ? [] : triggerMarkers(reader, trigger, samplesPerRecord);
  if (reader.annotationSignals.length === 0) return { samples: total, markers: triggers };
  const onsets = reader.recordOnsets();
  const duration = reader.header.recordDuration;
  const at = (seconds: number) => positionAt(seconds, onsets, duration, samplesPerRecord);
  let samples = total;
  const markers: ReplayMarker[] = [];
  for (const annotation of reader.readAnnotations()) {
    const position = at(annotation.onset);
    if (annotation.text.trim().toLowerCase() === 'recording ends') {
      if (position !== undefined && position > total - samplesPerRecord && position < samples) {
        samples = Math.max(1, position);
      }
      continue;
    }
    if (position === undefined || position >= total) {
      warnings.push(
        `annotation "${annotation.text}" at ${annotation.onset} s lies after the last sample; it is not replayed`,
      );
      continue;
    }
    markers.push({ position, onset: annotation.onset, duration: annotation.duration, text: annotation.text });
  }
  // Markers in the cut padding are past the end too.
  const played = [...markers, ...triggers].filter((m) => m.position < samples);
  played.sort((a, b) => a.position - b.position);
  return { samples, markers: played };
}

/** What the file holds, checked: its channels mapped to electrodes, its rate, its gaps. */
function describe(path: string, reader: EdfReader): ReplayRecording {
  const warnings = [...reader.warnings];
  const { channels, dropped } = mapChannels(reader, warnings);
  if (reader.recordCount === 0) refuse(`${path} holds no data record: there is nothing to replay.`);
  const first = channels[0] as ReplayChannel;
  const samplesPerRecord = first.signal.samplesPerRecord;
  const sampleRate = first.signal.sampleRate;
  const { samples, markers } = playback(reader, samplesPerRecord, warnings);
  const gapRecords = findGaps(reader);
  const info: ReplayRecordingInfo = {
    path,
    fileName: basename(path),
    format: reader.kind.format,
    variant: reader.kind.variant,
    sampleRate,
    samples,
    durationSeconds: samples / sampleRate,
    paddingSamples: samplesPerRecord * reader.recordCount - samples,
    markers: markers.length,
    channels: channels.map(({ electrode, label, unit }) => ({ electrode, label, unit })),
    droppedLabels: dropped.map((d) => d.label),
    dropped,
    warnings,
  };
  return {
    header: reader.header,
    channels,
    sampleRate,
    samplesPerRecord,
    recordCount: reader.recordCount,
    samples,
    markers,
    gapRecords,
    info,
  };
}
