/**
 * JSON text to a value, with the one error message the API and `headsetd validate` both give.
 */
import { HeadsetdError } from '../../core/errors.js';
import { MAX_BODY_DEPTH } from '../../core/yaml-depth.js';
import { assertDocument } from './depth.js';

/**
 * JSON text whose arrays and objects certainly nest deeper than MAX_BODY_DEPTH: the text up to the
 * first opening too deep, with every open one closed after it; undefined when it never nests so
 * deep. JSON.parse takes a few µs a level (a body of 200,000 `[` held the API's thread 0.3–0.9 s
 * before it was refused); this reads each character once and stops at the culprit.
 */
function tooDeepPrefix(text: string): string | undefined {
  const closers: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      closers.push(c === '[' ? ']' : '}');
      if (closers.length > MAX_BODY_DEPTH) return text.slice(0, i + 1) + closers.reverse().join('');
    } else if (c === ']' || c === '}') closers.pop();
  }
  return undefined;
}

/**
 * Parses JSON text; malformed text is a 400 `invalid_request` with the parser's message, and text
 * nested too deep is refused as assertDocument refuses it (the same pointer) before it is parsed.
 */
export function parseJsonText(text: string): unknown {
  const prefix = tooDeepPrefix(text);
  if (prefix !== undefined) {
    let culprit: unknown;
    try {
      culprit = JSON.parse(prefix) as unknown;
    } catch {
      // Malformed before the culprit: the whole text's parse says where.
    }
    if (culprit !== undefined) assertDocument(culprit);
  }
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
