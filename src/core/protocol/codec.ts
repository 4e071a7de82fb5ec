/**
 * Picks a codec by encoding name, so that callers hold one `encode` and one decoder whatever the
 * node's `protocol` setting.
 */
import { BinaryDecoder, encodeBinary } from './binary.js';
import {
  MAX_MESSAGE_BYTES,
  type MessageDecoder,
  type ProtocolEncoding,
  type ProtocolMessage,
} from './messages.js';
import { encodeNdjson, NdjsonDecoder } from './ndjson.js';

/** Encodes one message in `encoding`, ready to write to a pipe. */
export function encodeMessage(encoding: ProtocolEncoding, message: ProtocolMessage): Buffer {
  return encoding === 'binary' ? encodeBinary(message) : encodeNdjson(message);
}

/** A streaming decoder for `encoding` that refuses messages over `maxMessageBytes`. */
export function createDecoder(
  encoding: ProtocolEncoding,
  maxMessageBytes = MAX_MESSAGE_BYTES,
): MessageDecoder {
  return encoding === 'binary' ? new BinaryDecoder(maxMessageBytes) : new NdjsonDecoder(maxMessageBytes);
}

export * from './messages.js';
