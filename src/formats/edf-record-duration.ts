/**
 * The data-record duration rule of the EDF/BDF writer.
 *
 * A record lasts d seconds and holds n = sampleRate × d samples per channel. The writer picks
 *   1. among durations d = n / sampleRate (n = 1 … ⌊sampleRate⌋, so d ≤ 1 s and n is an integer)
 *      that are a whole number of microseconds (so d is exact in the 8-character header field and
 *      in EDFlib's 100 ns time base) and whose record (all channels + the annotation signal) is at
 *      most 61,440 bytes (the EDF spec's recommended maximum record size),
 *   2. the largest one of the form 1/k s (1, 0.5, 0.25, 0.2, 0.125, 0.1, …), which keeps record
 *      onsets round numbers; when there is none (non-integer rates such as 2.5 Hz), the largest one.
 * So 1 s up to 1,600 Hz × 19 channels in EDF; 16 kHz × 19 channels gives 0.1 s (EDF) and 0.05 s (BDF).
 * Rates for which no duration qualifies (under 1 Hz, or 1000/3 Hz) are refused.
 */
import { FormatError } from './format-error.js';

/** EDF spec: "the size of one data record should not exceed 61440 bytes". */
export const MAX_RECORD_BYTES = 61_440;
/** EDFlib refuses records over 10 MiB; an explicitly asked duration may go up to that. */
export const HARD_MAX_RECORD_BYTES = 10 * 1024 * 1024;

export interface RecordLayoutInput {
  sampleRate: number;
  /** Bytes of one sample of every data channel: channels × 2 (EDF) or × 3 (BDF). */
  bytesPerSampleFrame: number;
  /** Bytes of the annotation signal in each record. */
  annotationBytes: number;
}

export interface RecordDuration {
  /** Seconds, exact in microseconds. */
  seconds: number;
  samplesPerRecord: number;
}

/**
 * True when n / rate is a whole number of microseconds. The 1e-6 µs tolerance only absorbs the
 * floating-point error of n × 1e6 / rate (about 1e-10 µs for d ≤ 1 s).
 */
function wholeMicroseconds(n: number, rate: number): boolean {
  const us = (n * 1e6) / rate;
  return Math.abs(us - Math.round(us)) <= 1e-6;
}

/** Applies the rule of the file comment; throws `validation_failed` when no duration qualifies. */
export function chooseRecordDuration(input: RecordLayoutInput): RecordDuration {
  const { sampleRate, bytesPerSampleFrame, annotationBytes } = input;
  if (!(sampleRate > 0) || !Number.isFinite(sampleRate)) {
    throw new FormatError(`The sample rate ${sampleRate} Hz is not a positive number.`);
  }
  let best: number | undefined;
  let bestInverse: number | undefined;
  for (let n = Math.floor(sampleRate + 1e-9); n >= 1; n--) {
    if (n * bytesPerSampleFrame + annotationBytes > MAX_RECORD_BYTES) continue;
    if (!wholeMicroseconds(n, sampleRate)) continue;
    best ??= n;
    const k = sampleRate / n;
    if (Math.abs(k - Math.round(k)) <= 1e-9 * k) {
      bestInverse = n;
      break;
    }
  }
  const n = bestInverse ?? best;
  if (n === undefined) {
    throw new FormatError(
      `No data-record duration of at most 1 s holds a whole number of samples at ${sampleRate} Hz in a record of at most ${MAX_RECORD_BYTES} bytes; use another sample rate.`,
      { sampleRate },
    );
  }
  return { seconds: Math.round((n * 1e6) / sampleRate) / 1e6, samplesPerRecord: n };
}

/** Validates a duration asked for explicitly: whole samples, exact in µs, record ≤ 10 MiB. */
export function checkRecordDuration(input: RecordLayoutInput, seconds: number): RecordDuration {
  const n = Math.round(input.sampleRate * seconds);
  const exact = Math.abs(input.sampleRate * seconds - n) <= 1e-9 * Math.max(1, n);
  const us = seconds * 1e6;
  if (!(seconds > 0) || !exact || n < 1 || Math.abs(us - Math.round(us)) > 1e-6 || seconds >= 1e7) {
    throw new FormatError(
      `A data record of ${seconds} s does not hold a whole number of samples at ${input.sampleRate} Hz (or is not a whole number of microseconds).`,
      { recordDurationSeconds: seconds },
    );
  }
  if (n * input.bytesPerSampleFrame + input.annotationBytes > HARD_MAX_RECORD_BYTES) {
    throw new FormatError(`A data record of ${seconds} s would exceed 10 MiB.`, {
      recordDurationSeconds: seconds,
    });
  }
  return { seconds, samplesPerRecord: n };
}
