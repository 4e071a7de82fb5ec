/**
 * JSON text to a value, with the one error message the API and `headsetd validate` both give.
 */
import { HeadsetdError } from '../../core/errors.js';

/** Parses JSON text; malformed text is a 400 `invalid_request` with the parser's message. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HeadsetdError(
      'invalid_request',
      `The JSON body is malformed: ${(error as Error).message}.`,
      {},
    );
  }
}
