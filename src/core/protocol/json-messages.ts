/**
 * Messages as JSON objects: the whole of the NDJSON encoding, and the body of the binary
 * encoding's non-frame messages. Checks every field by hand so that a child's mistake becomes one
 * clear `ProtocolError` instead of an undefined deep inside the runtime.
 */
import { type Frame, jsonRows, sampleFromJson, unitsProblem } from '../frame.js';
import {
  type FrameMessage,
  isEncoding,
  PROTOCOL_VERSION,
  ProtocolError,
  type ProtocolMessage,
} from './messages.js';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function requireString(json: JsonObject, key: string, what: string): string {
  const value = json[key];
  if (typeof value !== 'string') throw new ProtocolError(`${what}: '${key}' must be a string`);
  return value;
}

function requireNumber(json: JsonObject, key: string, what: string): number {
  const value = json[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ProtocolError(`${what}: '${key}' must be a finite number`);
  }
  return value;
}

function optionalObject(json: JsonObject, key: string, what: string): JsonObject {
  const value = json[key];
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw new ProtocolError(`${what}: '${key}' must be an object`);
  return value;
}

/** Frame fields shared by both encodings' checks: seq is a non-negative safe integer, the rate positive. */
export function checkFrameHeader(seq: number, sampleRate: number, what: string): void {
  if (!Number.isSafeInteger(seq) || seq < 0) {
    throw new ProtocolError(`${what}: 'seq' must be a non-negative integer`);
  }
  if (!(sampleRate > 0)) throw new ProtocolError(`${what}: 'sampleRate' must be positive`);
}

/**
 * Rows of samples to row-major float32: numbers, and the strings "NaN", "Infinity", "-Infinity"
 * for the values JSON has no number for (core/frame.ts JsonSample); `null` is read as NaN too (what
 * JSON.stringify writes for all three).
 */
function samplesFromRows(rows: unknown, width: number, what: string): Float32Array {
  if (!Array.isArray(rows)) throw new ProtocolError(`${what}: 'data' must be an array of rows`);
  const data = new Float32Array(rows.length * width);
  rows.forEach((row: unknown, i) => {
    if (!Array.isArray(row) || row.length !== width) {
      throw new ProtocolError(`${what}: row ${i} of 'data' must hold ${width} values, one per channel`);
    }
    row.forEach((value: unknown, c) => {
      const sample = value === null ? Number.NaN : sampleFromJson(value);
      if (sample === undefined) {
        throw new ProtocolError(
          `${what}: data[${i}][${c}] must be a number, "NaN", "Infinity", "-Infinity" or null`,
        );
      }
      data[i * width + c] = sample;
    });
  });
  return data;
}

function frameFromMessage(json: JsonObject): FrameMessage {
  const what = 'frame message';
  const port = requireString(json, 'port', what);
  const seq = requireNumber(json, 'seq', what);
  const timestamp = requireNumber(json, 'timestamp', what);
  const sampleRate = requireNumber(json, 'sampleRate', what);
  checkFrameHeader(seq, sampleRate, what);
  const channels = json.channels;
  if (!isStringArray(channels)) throw new ProtocolError(`${what}: 'channels' must be an array of strings`);
  const data = samplesFromRows(json.data, channels.length, what);
  const units = json.units;
  const unitsIssue = unitsProblem(units, channels.length);
  if (unitsIssue !== undefined) throw new ProtocolError(`${what}: ${unitsIssue}`);
  const discontinuity = json.discontinuity;
  if (discontinuity !== undefined && typeof discontinuity !== 'boolean') {
    throw new ProtocolError(`${what}: 'discontinuity' must be a boolean`);
  }
  const frame: Frame = {
    seq,
    timestamp,
    sampleRate,
    channels,
    data,
    ...(units === undefined ? {} : { units: units as string[] }),
    ...(discontinuity === true ? { discontinuity: true } : {}),
  };
  return { type: 'frame', port, frame };
}

function portsOf(json: JsonObject, key: 'inputs' | 'outputs'): { inputs?: string[]; outputs?: string[] } {
  const value = json[key];
  if (value === undefined || value === null) return {};
  if (!isStringArray(value)) throw new ProtocolError(`ready message: '${key}' must be an array of strings`);
  return { [key]: value };
}

/** Checks a parsed JSON value and returns the message it is. Throws `ProtocolError`. */
export function messageFromJson(json: unknown): ProtocolMessage {
  if (!isObject(json)) throw new ProtocolError('a message must be a JSON object');
  const type = json.type;
  switch (type) {
    case 'frame':
      return frameFromMessage(json);
    case 'signal':
      return {
        type,
        name: requireString(json, 'name', 'signal message'),
        payload: optionalObject(json, 'payload', 'signal message'),
      };
    case 'ready':
      return { type, ...portsOf(json, 'inputs'), ...portsOf(json, 'outputs') };
    case 'error':
      return { type, message: requireString(json, 'message', 'error message') };
    case 'info':
      return { type, info: optionalObject(json, 'info', 'info message') };
    case 'config': {
      const encoding = json.encoding;
      if (!isEncoding(encoding))
        throw new ProtocolError("config message: 'encoding' must be ndjson or binary");
      return {
        type,
        version: typeof json.version === 'number' ? json.version : PROTOCOL_VERSION,
        streamId: requireString(json, 'streamId', 'config message'),
        nodeId: requireString(json, 'nodeId', 'config message'),
        encoding,
        config: optionalObject(json, 'config', 'config message'),
      };
    }
    default:
      throw new ProtocolError(
        `unknown message type ${typeof type === 'string' ? JSON.stringify(type) : typeof type}`,
      );
  }
}

/** The JSON object of a message (frames in the text form of docs/api.md §Frames plus `type` and `port`). */
export function messageToJson(message: ProtocolMessage): JsonObject {
  if (message.type !== 'frame') return { ...message };
  const { frame } = message;
  const rows = jsonRows(frame);
  return {
    type: 'frame',
    port: message.port,
    seq: frame.seq,
    timestamp: frame.timestamp,
    sampleRate: frame.sampleRate,
    channels: [...frame.channels],
    data: rows,
    ...(frame.units === undefined ? {} : { units: [...frame.units] }),
    ...(frame.discontinuity === true ? { discontinuity: true } : {}),
  };
}
