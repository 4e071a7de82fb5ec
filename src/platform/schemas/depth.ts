/**
 * What every parsed document must respect, shared by the API's body parsers, `headsetd validate`
 * and the settings file, so all refuse the same documents: a bound on nesting, and no member
 * named like a property of JavaScript's objects.
 */
import { MAX_BODY_DEPTH } from '../../core/yaml-depth.js';
import { type ErrorDetails, HeadsetdError } from '../../core/errors.js';
import { issuesToError } from './validator.js';

// MAX_BODY_DEPTH: 1 MiB of `[` is 10^6 levels, which overflows the stack of the recursive code
// that later stores and answers the value (JSON.stringify); no stream document needs more than a
// handful. It lives with the YAML depth check, which applies it before a YAML text is composed.

/**
 * Member names no document may hold. JSON.parse and the YAML parser make them own members, but
 * code that copies members by assignment (`target[key] = value`, Object.assign) sets the copy's
 * prototype instead: the member vanishes from validation and the document was accepted with a
 * field that is refused everywhere else.
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The refusal of a document nested too deep, `path` pointing at the first value beyond the limit. */
export function tooDeep(path: string, details: ErrorDetails = {}): HeadsetdError {
  return new HeadsetdError(
    'invalid_request',
    `The document is nested more than ${MAX_BODY_DEPTH} levels deep; flatten it.`,
    { path, ...details },
  );
}

/** The refusal of a reserved member name: the usual unknown-field error. */
export function reservedKey(path: string, key: string): HeadsetdError {
  return issuesToError(
    [
      {
        path: `${path}/${escapePointer(key)}`,
        message: `'${key}' is not a known field (no field may be named __proto__, constructor or prototype)`,
        code: 'invalid_request',
      },
    ],
    'The document',
  );
}

/**
 * Refuses a parsed document nested deeper than MAX_BODY_DEPTH or holding a reserved member name;
 * iterative, so it cannot overflow itself.
 */
export function assertDocument(value: unknown): void {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: '' }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (item.value === null || typeof item.value !== 'object') continue;
    const depth = item.depth + 1;
    if (depth > MAX_BODY_DEPTH) throw tooDeep(item.path);
    const isArray = Array.isArray(item.value);
    for (const [key, child] of Object.entries(item.value)) {
      if (!isArray && RESERVED_KEYS.has(key)) throw reservedKey(item.path, key);
      stack.push({ value: child, depth, path: `${item.path}/${escapePointer(key)}` });
    }
  }
}
