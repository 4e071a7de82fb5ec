/**
 * Builds the header of an EDF+C / BDF+C file as the writer emits it, free of the flaws readers
 * have to tolerate: every field left-aligned and space-padded US-ASCII (EDF spec), EDF+ patient
 * and recording subfields (EDF+ §2.1.3), annotation signal with blank prefilter/reserved fields.
 */
import { FormatError } from './format-error.js';
import { FIXED_HEADER_BYTES } from './edf-header.js';

/** One data channel as the writer's caller describes it. */
export interface EdfChannel {
  /** At most 16 characters are kept (the header field's width). */
  label: string;
  /** Default `uV`. */
  physicalDimension?: string;
  /**
   * The lowest and highest values written without clipping. The header's physical minimum lies
   * one step lower (see planSignals): the digital minimum is the code of "no value".
   */
  physicalMin: number;
  physicalMax: number;
  prefiltering?: string;
  transducer?: string;
}

export interface HeaderSignal {
  label: string;
  transducer: string;
  physicalDimension: string;
  /** Already formatted to at most 8 characters (see formatLimit). */
  physicalMin: string;
  physicalMax: string;
  digitalMin: number;
  digitalMax: number;
  prefiltering: string;
  samplesPerRecord: number;
}

export interface HeaderInput {
  format: 'edf' | 'bdf';
  patient: string;
  recording: string;
  /** Start of the header's second (sub-seconds go in the first time-keeping TAL). */
  startSecond: Date;
  recordDuration: string;
  signals: HeaderSignal[];
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/** Header text must be printable US-ASCII (EDF spec); anything else becomes '_'. */
export function asciiField(value: string): string {
  return value.replace(/[µμ]/g, 'u').replace(/[^\x20-\x7e]/g, '_');
}

function pad(value: string, width: number): string {
  return asciiField(value).slice(0, width).padEnd(width, ' ');
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/** EDF+ §2.1.3.1: a subfield holds no spaces; an unknown one is "X". */
function subfield(value: string | undefined): string {
  const s = asciiField(value ?? '')
    .trim()
    .replace(/\s+/g, '_');
  return s === '' ? 'X' : s;
}

/** EDF+ patient field: code, sex, birthdate, name (all unknown but the code when given). */
export function patientField(code: string | undefined): string {
  return `${subfield(code)} X X X`;
}

/** EDF+ recording field: "Startdate dd-MMM-yyyy admincode technician equipment [free text]". */
export function recordingField(startSecond: Date, text: string | undefined): string {
  const d = startSecond;
  const date = `${two(d.getUTCDate())}-${MONTHS[d.getUTCMonth()] ?? 'JAN'}-${d.getUTCFullYear()}`;
  const extra = text === undefined || text.trim() === '' ? '' : ` ${asciiField(text).trim()}`;
  return `Startdate ${date} X X headsetd${extra}`;
}

/**
 * Formats a limit in at most 8 characters, rounding down (a minimum) or up (a maximum) when
 * digits must go, so the written range still contains the asked one.
 */
export function formatLimit(value: number, direction: 'down' | 'up'): string {
  const plain = String(value);
  if (plain.length <= 8 && !plain.includes('e')) return plain;
  for (let decimals = 7; decimals >= 0; decimals--) {
    const scale = 10 ** decimals;
    const rounded =
      direction === 'down' ? Math.floor(value * scale) / scale : Math.ceil(value * scale) / scale;
    const s = rounded
      .toFixed(decimals)
      .replace(/(\.\d*?)0+$/, '$1')
      .replace(/\.$/, '');
    if (s.length <= 8) return s === '-0' ? '0' : s;
  }
  throw new FormatError(`The physical limit ${value} does not fit the 8-character field.`);
}

/** Encodes the complete header: 256 × (signals + 1) bytes, record count 0. */
export function buildHeader(input: HeaderInput): Buffer {
  const { signals } = input;
  const d = input.startSecond;
  const year = d.getUTCFullYear();
  if (year < 1985 || year > 2084) {
    throw new FormatError(`The start year ${year} is outside EDF's 1985–2084.`);
  }
  const fixed =
    (input.format === 'bdf' ? ' BIOSEMI' : '0       ') +
    pad(input.patient, 80) +
    pad(input.recording, 80) +
    `${two(d.getUTCDate())}.${two(d.getUTCMonth() + 1)}.${two(year % 100)}` +
    `${two(d.getUTCHours())}.${two(d.getUTCMinutes())}.${two(d.getUTCSeconds())}` +
    pad(String(FIXED_HEADER_BYTES * (signals.length + 1)), 8) +
    pad(input.format === 'bdf' ? 'BDF+C' : 'EDF+C', 44) +
    pad('0', 8) +
    pad(input.recordDuration, 8) +
    pad(String(signals.length), 4);
  const columns: [keyof HeaderSignal, number][] = [
    ['label', 16],
    ['transducer', 80],
    ['physicalDimension', 8],
    ['physicalMin', 8],
    ['physicalMax', 8],
    ['digitalMin', 8],
    ['digitalMax', 8],
    ['prefiltering', 80],
    ['samplesPerRecord', 8],
  ];
  let perSignal = '';
  for (const [key, width] of columns) for (const s of signals) perSignal += pad(String(s[key]), width);
  perSignal += ' '.repeat(32 * signals.length);
  const header = Buffer.from(fixed + perSignal, 'latin1');
  // BDF's version field is the byte 0xFF followed by "BIOSEMI" (BioSemi BDF format).
  if (input.format === 'bdf') header[0] = 0xff;
  return header;
}

/** The format's full digital range, used for every data channel and the annotation signal. */
export const DIGITAL_RANGE = {
  edf: { min: -32768, max: 32767, bytes: 2 },
  bdf: { min: -8388608, max: 8388607, bytes: 3 },
} as const;

/**
 * The header's physical minimum for a channel whose values span `min`..`max`: one step below
 * `min`, so that `min` maps to the digital minimum + 1 or above and the digital minimum itself is
 * left to "no value" (NaN, ±Infinity). The step is that of `min`..`max` over the digital codes
 * above the minimum; the limit is rounded down to fit the 8-character field, and checked: the
 * first candidate whose map puts `min` at least one code above the minimum is taken. Only when no
 * lower limit fits the field (`min` near −9999999) is it `min` itself.
 */
export function reservedPhysicalMin(format: 'edf' | 'bdf', min: number, max: number): string {
  const { min: dmin, max: dmax } = DIGITAL_RANGE[format];
  const pmax = Number(formatLimit(max, 'up'));
  const step = (pmax - min) / (dmax - dmin - 1);
  // A hair above one step first (float error must not cost a whole decimal), then wider.
  for (const below of [step * (1 - 1e-6), step, 2 * step, 4 * step]) {
    let text: string;
    try {
      text = formatLimit(min - below, 'down');
    } catch {
      break; // no lower limit fits the field (below −9999999)
    }
    const pmin = Number(text);
    const gain = (dmax - dmin) / (pmax - pmin);
    if (Math.round((min - pmin) * gain + dmin) >= dmin + 1) return text;
  }
  // Then `min` itself: its lowest step is then the digital minimum, and a value there is written
  // one code up (counted as clipped), so "no value" stays reserved.
  return formatLimit(min, 'down');
}

/**
 * The header signals (channels, then the annotation signal) and the per-channel scaling the
 * writer quantises with: computed from the limits as written, so that a reader applying the EDF
 * formula to the header gets back exactly the writer's map. The physical minimum is
 * {@link reservedPhysicalMin}.
 */
export function planSignals(
  format: 'edf' | 'bdf',
  channels: readonly EdfChannel[],
  samplesPerRecord: number,
  annotationSamples: number,
): { signals: HeaderSignal[]; physicalMins: Float64Array; gains: Float64Array } {
  const { min, max } = DIGITAL_RANGE[format];
  const physicalMins = new Float64Array(channels.length);
  const gains = new Float64Array(channels.length);
  const signals: HeaderSignal[] = channels.map((c, i) => {
    if (
      !(c.physicalMin < c.physicalMax) ||
      !Number.isFinite(c.physicalMin) ||
      !Number.isFinite(c.physicalMax)
    ) {
      throw new FormatError(
        `Channel ${c.label}: the physical minimum must be below the maximum, both finite.`,
        { channel: i },
      );
    }
    const physicalMin = reservedPhysicalMin(format, c.physicalMin, c.physicalMax);
    const physicalMax = formatLimit(c.physicalMax, 'up');
    physicalMins[i] = Number(physicalMin);
    gains[i] = (max - min) / (Number(physicalMax) - Number(physicalMin));
    return {
      label: c.label,
      transducer: c.transducer ?? '',
      physicalDimension: c.physicalDimension ?? 'uV',
      physicalMin,
      physicalMax,
      digitalMin: min,
      digitalMax: max,
      prefiltering: c.prefiltering ?? '',
      samplesPerRecord,
    };
  });
  // EDF+ §2.2.1: the annotation signal; EDFlib's own writer uses -1/1 as its physical range.
  signals.push({
    label: format === 'bdf' ? 'BDF Annotations' : 'EDF Annotations',
    transducer: '',
    physicalDimension: '',
    physicalMin: '-1',
    physicalMax: '1',
    digitalMin: min,
    digitalMax: max,
    prefiltering: '',
    samplesPerRecord: annotationSamples,
  });
  return { signals, physicalMins, gains };
}
