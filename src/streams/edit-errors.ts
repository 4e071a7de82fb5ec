/**
 * Errors of an edit (add nodes or pipes) answered relative to the request body: the whole edited
 * graph is validated, so its errors point into the stream (`/nodes/7/...`); those about the
 * request's own items are moved onto the body (`/2/...`).
 */
import { HeadsetdError } from '../core/errors.js';

/** Moves pointers of a whole-graph error onto the request body: `/nodes/7/...` → `/2/...` when 5 nodes came before. */
export function rebaseError(error: unknown, collection: 'nodes' | 'pipes', offset: number): unknown {
  if (!(error instanceof HeadsetdError) || error.details === undefined) return error;
  const rebase = (p: unknown): unknown => {
    if (typeof p !== 'string') return p;
    const match = new RegExp(`^/${collection}/(\\d+)(.*)$`).exec(p);
    if (match === null) return p;
    const index = Number(match[1]) - offset;
    return index >= 0 ? `/${index}${match[2] ?? ''}` : p;
  };
  const errors = error.details.errors as { path: string; message: string }[] | undefined;
  const details = {
    ...error.details,
    path: rebase(error.details.path),
    ...(errors === undefined ? {} : { errors: errors.map((e) => ({ ...e, path: rebase(e.path) })) }),
  };
  const message = error.message.replace(new RegExp(`/${collection}/(\\d+)`, 'g'), (whole, n: string) => {
    const index = Number(n) - offset;
    return index >= 0 ? `/${index}` : whole;
  });
  // The subject follows the lead pointer: an existing item's error still concerns the stream.
  const leadRebased = details.path !== error.details.path;
  return new HeadsetdError(
    error.code,
    leadRebased ? message.replace(/^The stream at/, 'The body at') : message,
    details,
  );
}
