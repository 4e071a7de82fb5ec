/**
 * Small request helpers shared by the /system, guide and SDK plugins: query arrays and booleans in the
 * forms of docs/api.md §Conventions, and device errors given a JSON pointer (`details.path`) into
 * the request part they came from. Body fields are read in body.ts.
 */
import { Type } from 'typebox';
import { HeadsetdError, isHeadsetdError } from '../core/errors.js';

/** Where a pointer starts: the body (`''`) or the query string (`/querystring`, as the route validator says). */
export type PointerBase = '' | '/querystring' | '/params';

/** `?channels=O1&channels=O2,P3` → `['O1', 'O2', 'P3']`; undefined when absent. Empty items are dropped. */
export function listParam(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  return items
    .flatMap((item) => String(item).split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

const TRUE_WORDS = new Set(['true', 'TRUE', '1', 'True']);
const FALSE_WORDS = new Set(['false', 'FALSE', '0', 'False']);
/** The spellings of a query boolean, for route schemas. */
export const QUERY_BOOLEAN_WORDS = ['true', 'TRUE', 'True', '1', 'false', 'FALSE', 'False', '0'] as const;

/** A query boolean's schema, for route schemas. */
export const QueryBoolean = Type.Optional(
  Type.Enum([...QUERY_BOOLEAN_WORDS], { description: 'true/TRUE/1 or false/FALSE/0.' }),
);

/** A query boolean (`true`/`TRUE`/`1`, `false`/`FALSE`/`0`); `fallback` when absent. */
export function queryBoolean(value: unknown, name: string, fallback = false): boolean {
  if (value === undefined) return fallback;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (TRUE_WORDS.has(text)) return true;
  if (FALSE_WORDS.has(text)) return false;
  throw new HeadsetdError(
    'invalid_request',
    `The query parameter '${name}' must be true, TRUE, 1, false, FALSE or 0; got ${JSON.stringify(text)}.`,
    { path: `/querystring/${name}` },
  );
}

/**
 * Runs a device call and gives its validation errors a pointer: the device names the offending
 * field (`details.field`, e.g. `configuration/0/electrode`); the answer needs `details.path`.
 * `rename` maps device field names to request field names where they differ.
 */
export async function deviceCall<T>(
  run: () => Promise<T> | T,
  base: PointerBase = '',
  rename: Readonly<Record<string, string>> = {},
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw withPointer(error, base, rename);
  }
}

/** The synchronous form of {@link deviceCall}. */
export function deviceRead<T>(
  run: () => T,
  base: PointerBase = '',
  rename: Readonly<Record<string, string>> = {},
): T {
  try {
    return run();
  } catch (error) {
    throw withPointer(error, base, rename);
  }
}

function withPointer(error: unknown, base: PointerBase, rename: Readonly<Record<string, string>>): unknown {
  if (!isHeadsetdError(error) || error.details === undefined) return error;
  const field = error.details.field;
  if (typeof field !== 'string' || typeof error.details.path === 'string') return error;
  const name = rename[field] ?? field;
  return new HeadsetdError(error.code, error.message, { ...error.details, path: `${base}/${name}` });
}
