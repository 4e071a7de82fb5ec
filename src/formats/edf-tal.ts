/**
 * Time-stamped Annotations Lists (EDF+ spec §2.2.2): the content of the `EDF Annotations` /
 * `BDF Annotations` signal, read as bytes whatever the sample width.
 *
 *   TAL = "+" onset [0x15 duration] 0x14 { text 0x14 } 0x00
 *
 * Onset and duration are decimal seconds (onset relative to the header's start second). The first
 * TAL of every data record is the record's time-keeping TAL: its first text is empty and its onset
 * is the start of that record (EDF+ §2.2.4). Unused bytes after the last TAL are 0x00.
 *
 * Times are carried as integer "ticks" of 100 ns, EDFlib's time base, so that record onsets are
 * exact whatever the record duration (2^53 ticks is 28 years).
 */

/** Ticks per second: 100 ns resolution, as EDFlib's EDFLIB_TIME_DIMENSION. */
export const TICKS_PER_SECOND = 10_000_000;

/** One parsed TAL. `duration` is undefined when the TAL has none. */
export interface Tal {
  onset: number;
  duration: number | undefined;
  texts: string[];
}

const ONSET = /^[+-]?\d+(\.\d*)?$/;
const DURATION = /^\d+(\.\d*)?$/;
const decoder = new TextDecoder('utf-8');

/**
 * Parses the TALs of one record's annotation bytes. Malformed TALs are skipped (counted in the
 * returned `skipped`), because one bad annotation must not make a recording unreadable.
 */
export function parseTals(bytes: Uint8Array): { tals: Tal[]; skipped: number } {
  const tals: Tal[] = [];
  let skipped = 0;
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i < bytes.length && bytes[i] !== 0) continue;
    if (i > start) {
      const tal = parseOneTal(decoder.decode(bytes.subarray(start, i)));
      if (tal) tals.push(tal);
      else skipped++;
    }
    start = i + 1;
  }
  return { tals, skipped };
}

function parseOneTal(s: string): Tal | undefined {
  const parts = s.split('\x14');
  // A well-formed TAL ends with 0x14, so the last part is empty; tolerate its absence.
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  const [time, ...texts] = parts;
  if (time === undefined || parts.length < 2) return undefined;
  const [onsetText, durationText, ...extra] = time.split('\x15');
  if (onsetText === undefined || !ONSET.test(onsetText) || extra.length > 0) return undefined;
  if (durationText !== undefined && durationText !== '' && !DURATION.test(durationText)) return undefined;
  return {
    onset: Number.parseFloat(onsetText),
    duration: durationText === undefined || durationText === '' ? undefined : Number.parseFloat(durationText),
    texts,
  };
}

/** Formats ticks as seconds with the fewest decimals (at most 7), e.g. 12.5 s → "12.5". */
export function formatTicks(ticks: number): string {
  const sign = ticks < 0 ? '-' : '';
  const abs = Math.abs(ticks);
  const whole = Math.floor(abs / TICKS_PER_SECOND);
  const frac = abs - whole * TICKS_PER_SECOND;
  if (frac === 0) return `${sign}${whole}`;
  return `${sign}${whole}.${String(frac).padStart(7, '0').replace(/0+$/, '')}`;
}

/** Seconds to the nearest tick. */
export function secondsToTicks(seconds: number): number {
  return Math.round(seconds * TICKS_PER_SECOND);
}

/** Replaces the bytes a TAL text may not contain (0x00, 0x14, 0x15, other controls) by spaces. */
export function sanitizeTalText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
  // eslint-disable-next-line no-control-regex -- control characters are what is removed.
  return text.replace(/[\x00-\x1f\x7f]/g, ' ');
}

const encoder = new TextEncoder();

/** Encodes one TAL; texts must already be sanitized. */
export function encodeTal(
  onsetTicks: number,
  durationTicks: number | undefined,
  texts: readonly string[],
): Uint8Array {
  const onset = formatTicks(onsetTicks);
  let s = onset.startsWith('-') ? onset : `+${onset}`;
  if (durationTicks !== undefined) s += `\x15${formatTicks(durationTicks)}`;
  s += '\x14';
  for (const t of texts) s += `${t}\x14`;
  s += '\x00';
  return encoder.encode(s);
}

/** The time-keeping TAL that opens every data record (EDF+ §2.2.4): onset, then an empty text. */
export function encodeTimeKeepingTal(onsetTicks: number): Uint8Array {
  return encodeTal(onsetTicks, undefined, ['']);
}

/** Cuts a UTF-8 text to at most maxBytes bytes without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Back up over continuation bytes (10xxxxxx) so the cut falls on a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end));
}
