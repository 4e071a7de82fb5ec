/**
 * A bound on the nesting of documents, shared by the API's body parsers and `headsetd validate`,
 * so both refuse the same documents.
 */
import { type ErrorDetails, HeadsetdError } from '../errors.js';

/**
 * Deepest nesting of objects and arrays a body may have. 1 MiB of `[` is 10^6 levels, which
 * overflows the stack of the recursive code that later stores and answers the value
 * (JSON.stringify); no stream document needs more than a handful.
 */
export const MAX_BODY_DEPTH = 64;

/** The refusal of a document nested too deep, `path` pointing at the first value beyond the limit. */
export function tooDeep(path: string, details: ErrorDetails = {}): HeadsetdError {
  return new HeadsetdError(
    'invalid_request',
    `The document is nested more than ${MAX_BODY_DEPTH} levels deep; flatten it.`,
    { path, ...details },
  );
}

/** Refuses a parsed body nested deeper than MAX_BODY_DEPTH; iterative, so it cannot overflow itself. */
export function assertDepth(value: unknown): void {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: '' }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (item.value === null || typeof item.value !== 'object') continue;
    const depth = item.depth + 1;
    if (depth > MAX_BODY_DEPTH) throw tooDeep(item.path);
    for (const [key, child] of Object.entries(item.value)) {
      stack.push({
        value: child,
        depth,
        path: `${item.path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      });
    }
  }
}
