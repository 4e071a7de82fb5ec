/**
 * Parsing of the EDF/EDF+/BDF/BDF+ header (EDF spec 1992 §"The header record"; EDF+ spec 2003 §2.1;
 * BioSemi BDF). The fixed part is 256 bytes; then ns blocks of 256 bytes, one field per signal at a
 * time (16 label, 80 transducer, 8 dimension, 8 pmin, 8 pmax, 8 dmin, 8 dmax, 80 prefiltering,
 * 8 samples per record, 32 reserved).
 *
 * Tolerant of the flaws real files carry: numbers padded on
 * either side, a decimal comma, a wrong "bytes in header" field, a record count of -1 or one that
 * disagrees with the file's length, non-blank reserved/prefilter fields on annotation signals.
 * Refuses (with a FormatError) what cannot be read safely.
 */
import { FormatError } from './format-error.js';

/** Offset of the 8-byte "number of data records" field, patched by writers and repair. */
export const RECORD_COUNT_OFFSET = 236;
/** Bytes of the fixed header part and of each signal's header block. */
export const FIXED_HEADER_BYTES = 256;

export type EdfFormat = 'edf' | 'bdf';
/** `plain` is EDF/BDF without the "+" extension; continuous/discontinuous are EDF+C/D, BDF+C/D. */
export type EdfVariant = 'plain' | 'continuous' | 'discontinuous';

export interface EdfSignalHeader {
  /** Position among all signals of the file, annotation signals included. */
  index: number;
  label: string;
  transducer: string;
  physicalDimension: string;
  physicalMin: number;
  physicalMax: number;
  digitalMin: number;
  digitalMax: number;
  prefiltering: string;
  samplesPerRecord: number;
  reserved: string;
  /** samplesPerRecord / recordDuration, in Hz. */
  sampleRate: number;
  /** True for an EDF+/BDF+ annotation signal (`EDF Annotations` / `BDF Annotations`). */
  isAnnotation: boolean;
}

export interface EdfHeader {
  format: EdfFormat;
  variant: EdfVariant;
  /** The 8-byte version field, trimmed (`0` for EDF, `BIOSEMI` after the 0xFF byte for BDF). */
  version: string;
  patient: string;
  recording: string;
  /** The start date and time fields as written (`dd.mm.yy`, `hh.mm.ss`), trimmed. */
  startDateField: string;
  startTimeField: string;
  /** Start of the header's second, the clock fields read as UTC (the file has no time zone). */
  startSecond: Date;
  /** Bytes before the first data record: 256 × (signal count + 1). */
  headerBytes: number;
  /** The 44-byte reserved field, trimmed (`EDF+C`, `BDF+D`, `24BIT`, …). */
  reserved: string;
  /** The record count as written in the header (-1 when unknown). */
  recordCountField: number;
  /** Duration of one data record, in seconds. */
  recordDuration: number;
  signals: EdfSignalHeader[];
  /** Bytes of one data record. */
  recordBytes: number;
  /** Bytes per sample: 2 (EDF) or 3 (BDF). */
  bytesPerSample: 2 | 3;
  /** Byte offset of each signal inside a data record. */
  signalOffsets: number[];
  /** Tolerated flaws found while parsing, one sentence each. */
  warnings: string[];
}

function formatError(reason: string, field?: string): FormatError {
  return new FormatError(
    `Not a readable EDF/BDF file: ${reason}.`,
    field === undefined ? undefined : { field },
  );
}

/** Decodes a header field as ASCII (bytes outside 32..126 become '?') and trims it. */
function text(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b >= 32 && b <= 126 ? String.fromCharCode(b) : b === 0 ? ' ' : '?';
  return s.trim();
}

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Parses an integer field, tolerating padding on either side. */
export function parseIntegerField(raw: string, field: string): number {
  const s = raw.trim();
  if (!INTEGER.test(s)) throw formatError(`field "${field}" is not an integer ("${s}")`, field);
  return Number.parseInt(s, 10);
}

/** Parses a decimal field, tolerating padding on either side and a decimal comma. */
export function parseNumberField(raw: string, field: string): number {
  const s = raw.trim().replace(',', '.');
  if (!DECIMAL.test(s)) throw formatError(`field "${field}" is not a number ("${s}")`, field);
  return Number.parseFloat(s);
}

/** EDF dates are dd.mm.yy with 1985 as the clipping year (EDF spec; EDF+ §2.1.3.2). */
function parseStart(dateField: string, timeField: string, recording: string): Date {
  const d = /^(\d{1,2})\D(\d{1,2})\D(\d{2})$/.exec(dateField);
  const t = /^(\d{1,2})\D(\d{1,2})\D(\d{1,2})$/.exec(timeField);
  if (!d || !t)
    throw formatError(`start date/time "${dateField} ${timeField}" is not dd.mm.yy hh.mm.ss`, 'startdate');
  const yy = Number(d[3]);
  let year = yy >= 85 ? 1900 + yy : 2000 + yy;
  // EDF+ §2.1.3.2: the recording field's "Startdate dd-MMM-yyyy" carries the four-digit year.
  const plus = /^Startdate \d{2}-[A-Za-z]{3}-(\d{4})\b/.exec(recording);
  if (plus && Number(plus[1]) % 100 === yy) year = Number(plus[1]);
  const month = Number(d[2]);
  const day = Number(d[1]);
  const [h, m, s] = [Number(t[1]), Number(t[2]), Number(t[3])];
  if (month < 1 || month > 12 || day < 1 || day > 31 || h > 23 || m > 59 || s > 59) {
    throw formatError(`start date/time "${dateField} ${timeField}" is out of range`, 'startdate');
  }
  return new Date(Date.UTC(year, month - 1, day, h, m, s));
}

function isAnnotationLabel(label: string): boolean {
  return label === 'EDF Annotations' || label === 'BDF Annotations';
}

/** Reads the signal count from the fixed 256-byte part, so a caller knows how much to read. */
export function signalCountOf(fixed: Uint8Array): number {
  if (fixed.length < FIXED_HEADER_BYTES) throw formatError('the file is shorter than the 256-byte header');
  const ns = parseIntegerField(text(fixed.subarray(252, 256)), 'number of signals');
  if (ns < 1) throw formatError(`the number of signals is ${ns}`, 'number of signals');
  return ns;
}

/**
 * Parses a full header (fixed part and all signal blocks).
 * @param bytes at least 256 × (ns + 1) bytes from the start of the file
 */
export function parseEdfHeader(bytes: Uint8Array): EdfHeader {
  const ns = signalCountOf(bytes);
  const headerBytes = FIXED_HEADER_BYTES * (ns + 1);
  if (bytes.length < headerBytes) throw formatError(`the header of ${ns} signals is cut short`);
  const warnings: string[] = [];
  const field = (start: number, length: number): string => text(bytes.subarray(start, start + length));

  let format: EdfFormat;
  let version: string;
  if (bytes[0] === 0xff && field(1, 7) === 'BIOSEMI') {
    format = 'bdf';
    version = 'BIOSEMI';
  } else if (field(0, 8) === '0') {
    format = 'edf';
    version = '0';
  } else {
    throw formatError(`unknown version field "${field(0, 8)}"`, 'version');
  }
  const patient = field(8, 80);
  const recording = field(88, 80);
  const startDateField = field(168, 8);
  const startTimeField = field(176, 8);
  const startSecond = parseStart(startDateField, startTimeField, recording);
  const headerBytesField = field(184, 8);
  if (!INTEGER.test(headerBytesField) || Number(headerBytesField) !== headerBytes) {
    warnings.push(
      `header size field "${headerBytesField}" differs from ${headerBytes}; using ${headerBytes}`,
    );
  }
  const reserved = field(192, 44);
  const variant: EdfVariant = /^(EDF|BDF)\+C/.test(reserved)
    ? 'continuous'
    : /^(EDF|BDF)\+D/.test(reserved)
      ? 'discontinuous'
      : 'plain';
  const recordCountField = parseIntegerField(field(236, 8), 'number of data records');
  if (recordCountField < -1) throw formatError(`the number of data records is ${recordCountField}`);
  const recordDuration = parseNumberField(field(244, 8), 'duration of a data record');
  if (!(recordDuration >= 0) || !Number.isFinite(recordDuration)) {
    throw formatError(`the record duration is ${recordDuration}`, 'duration of a data record');
  }

  // Signal blocks: each field for all signals, then the next field (EDF spec).
  let pos = FIXED_HEADER_BYTES;
  const column = (width: number): string[] => {
    const values: string[] = [];
    for (let i = 0; i < ns; i++) values.push(field(pos + i * width, width));
    pos += ns * width;
    return values;
  };
  const labels = column(16);
  const transducers = column(80);
  const dimensions = column(8);
  const pmins = column(8);
  const pmaxs = column(8);
  const dmins = column(8);
  const dmaxs = column(8);
  const prefilters = column(80);
  const counts = column(8);
  const reserveds = column(32);

  const bytesPerSample = format === 'bdf' ? 3 : 2;
  const signals: EdfSignalHeader[] = [];
  const signalOffsets: number[] = [];
  let recordBytes = 0;
  for (let i = 0; i < ns; i++) {
    const label = labels[i] ?? '';
    const isAnnotation = isAnnotationLabel(label);
    const at = `signal ${i + 1} (${label})`;
    const samplesPerRecord = parseIntegerField(counts[i] ?? '', `${at} samples per record`);
    if (samplesPerRecord < 1) throw formatError(`${at} has ${samplesPerRecord} samples per record`);
    const signal: EdfSignalHeader = {
      index: i,
      label,
      transducer: transducers[i] ?? '',
      physicalDimension: dimensions[i] ?? '',
      physicalMin: parseNumberField(pmins[i] ?? '', `${at} physical minimum`),
      physicalMax: parseNumberField(pmaxs[i] ?? '', `${at} physical maximum`),
      digitalMin: parseIntegerField(dmins[i] ?? '', `${at} digital minimum`),
      digitalMax: parseIntegerField(dmaxs[i] ?? '', `${at} digital maximum`),
      prefiltering: prefilters[i] ?? '',
      samplesPerRecord,
      reserved: reserveds[i] ?? '',
      sampleRate: recordDuration > 0 ? samplesPerRecord / recordDuration : 0,
      isAnnotation,
    };
    if (!isAnnotation && signal.digitalMax <= signal.digitalMin) {
      throw formatError(`${at} has digital maximum ${signal.digitalMax} ≤ minimum ${signal.digitalMin}`);
    }
    if (isAnnotation && (signal.prefiltering !== '' || signal.reserved !== '')) {
      warnings.push(`${at}: annotation signal with non-blank prefilter/reserved field`);
    }
    signals.push(signal);
    signalOffsets.push(recordBytes);
    recordBytes += samplesPerRecord * bytesPerSample;
  }
  if (recordDuration === 0 && signals.some((s) => !s.isAnnotation)) {
    throw formatError('the record duration is 0 but the file has data signals', 'duration of a data record');
  }
  return {
    format,
    variant,
    version,
    patient,
    recording,
    startDateField,
    startTimeField,
    startSecond,
    headerBytes,
    reserved,
    recordCountField,
    recordDuration,
    signals,
    recordBytes,
    bytesPerSample,
    signalOffsets,
    warnings,
  };
}
