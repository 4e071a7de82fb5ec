/**
 * One message of the ingest WebSocket (/stream/{streamId}/ingest): the JSON text form of a frame
 * (docs/api.md §Frames) `{seq?, timestamp, sampleRate, channels, data, units?, discontinuity?}`, plus an
 * optional `metadata` object (what a pipe with includeChannelMetadata sends). Anything else is
 * refused with a reason that fits a WebSocket close frame, never an exception.
 */
import { type Frame, sampleFromJson, unitsProblem } from '../../core/frame.js';
import { FRAME_TIME_END_MS, FRAME_TIME_MIN_MS, isFrameTime } from '../../core/frame-time.js';

/** WebSocket close codes (RFC 6455 §7.4.1). */
export const CLOSE = {
  /** A binary message: only the JSON text form is accepted. */
  unsupportedData: 1003,
  /** Not JSON, or not a frame (a timestamp outside core/frame-time.ts's span included). */
  invalidPayload: 1007,
  /** A frame that does not fit the ingest node (channels, rate) or a stream that stopped. */
  policyViolation: 1008,
} as const;

/** Limits of one frame: the WebSocket's 1 MiB payload bounds the rest. */
const MAX_CHANNELS = 64;
const MAX_NAME_LENGTH = 64;
const MAX_SAMPLE_RATE = 20_000;
const KNOWN_FIELDS = new Set([
  'seq',
  'timestamp',
  'sampleRate',
  'channels',
  'data',
  'units',
  'discontinuity',
  'marker',
  'annotation',
  'metadata',
]);

export type IngestParse =
  | { ok: true; frame: Frame; metadata: Record<string, unknown> | undefined }
  | { ok: false; code: number; reason: string };

function refuse(reason: string, code: number = CLOSE.invalidPayload): IngestParse {
  return { ok: false, code, reason };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses and checks one text message. */
export function parseIngestMessage(text: string): IngestParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refuse('not JSON: send one frame per message as JSON text');
  }
  if (!isRecord(value)) return refuse('a message must be a JSON object (a frame)');
  const unknown = Object.keys(value).find((k) => !KNOWN_FIELDS.has(k));
  if (unknown !== undefined) return refuse(`unknown field '${unknown.slice(0, 40)}' in a frame`);
  const { seq, timestamp, sampleRate, channels, data, units, discontinuity, metadata } = value;
  if (seq !== undefined && !(Number.isInteger(seq) && (seq as number) >= 0)) {
    return refuse('seq must be an integer >= 0');
  }
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) {
    return refuse('timestamp must be a number (ms since the epoch)');
  }
  if (!isFrameTime(timestamp)) {
    // Short enough for a close frame with the message number before it (closeReason: 123 bytes).
    return refuse(
      `timestamp ${String(timestamp)} is outside ${FRAME_TIME_MIN_MS}..${FRAME_TIME_END_MS - 1} (ms since the epoch, 1985-2084)`,
    );
  }
  if (typeof sampleRate !== 'number' || !(sampleRate > 0 && sampleRate <= MAX_SAMPLE_RATE)) {
    return refuse(`sampleRate must be a number above 0 and at most ${MAX_SAMPLE_RATE}`);
  }
  if (
    !Array.isArray(channels) ||
    channels.length === 0 ||
    channels.length > MAX_CHANNELS ||
    !channels.every((c) => typeof c === 'string' && c.length > 0 && c.length <= MAX_NAME_LENGTH)
  ) {
    return refuse(`channels must be 1 to ${MAX_CHANNELS} non-empty names`);
  }
  const unitsIssue = unitsProblem(units, channels.length);
  if (unitsIssue !== undefined) return refuse(unitsIssue.replaceAll("'", ''));
  if (discontinuity !== undefined && typeof discontinuity !== 'boolean') {
    return refuse('discontinuity must be a boolean');
  }
  if (metadata !== undefined && !isRecord(metadata)) return refuse('metadata must be an object');
  if (!Array.isArray(data)) return refuse('data must be an array of rows');
  const width = channels.length;
  const samples = new Float32Array(data.length * width);
  for (let i = 0; i < data.length; i++) {
    const row: unknown = data[i];
    if (!Array.isArray(row) || row.length !== width) {
      return refuse(`data row ${i} must hold ${width} numbers, one per channel`);
    }
    for (let c = 0; c < width; c++) {
      const v = sampleFromJson(row[c]);
      if (v === undefined)
        return refuse(`data[${i}][${c}] is not a number, "NaN", "Infinity" or "-Infinity"`);
      samples[i * width + c] = v;
    }
  }
  const frame: Frame = {
    seq: (seq as number | undefined) ?? 0,
    timestamp,
    sampleRate,
    channels: channels as string[],
    data: samples,
    ...(units === undefined ? {} : { units: units as string[] }),
    ...(discontinuity === true ? { discontinuity: true } : {}),
  };
  return { ok: true, frame, metadata };
}

/** What an ingest node accepts (its config); unset fields accept anything. */
export interface IngestExpectation {
  sampleRate?: number;
  /** Compared case-insensitively, in order. */
  channels?: readonly string[];
}

/** Checks a frame against the ingest node's config; a reason when it does not fit. */
export function mismatch(frame: Frame, expected: IngestExpectation): string | undefined {
  if (expected.sampleRate !== undefined && frame.sampleRate !== expected.sampleRate) {
    return `sampleRate ${frame.sampleRate} Hz: this stream ingests ${expected.sampleRate} Hz`;
  }
  const want = expected.channels;
  if (
    want !== undefined &&
    (want.length !== frame.channels.length ||
      want.some((c, i) => c.toUpperCase() !== frame.channels[i]?.toUpperCase()))
  ) {
    return `channels ${frame.channels.join(',')}: this stream ingests ${want.join(',')}`;
  }
  return undefined;
}

/** A close reason fits in 123 bytes (RFC 6455 §5.5: control frame payload ≤ 125, 2 for the code). */
export function closeReason(text: string): string {
  let out = text.length > 123 ? `${text.slice(0, 120)}…` : text;
  while (Buffer.byteLength(out) > 123) out = `${out.slice(0, -2)}…`;
  return out;
}
