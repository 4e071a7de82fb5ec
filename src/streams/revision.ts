/**
 * Optimistic concurrency for stream edits (docs/api.md §Concurrent edits): each stream has a
 * revision, answered as its ETag; an edit sent with `If-Match` applies only while the stream is
 * still at a revision the client named, so of two clients editing what they read, one wins and the
 * other is told to read again, instead of the last write silently undoing the first.
 */
import { HeadsetdError } from '../errors/catalog.js';
import type { StreamEntry } from './entry.js';

/** The revisions an edit may apply to (its If-Match); undefined when the client named none (or `*`). */
export type Precondition = { readonly revisions: readonly number[] } | undefined;

/** The entity tag of a revision: a strong ETag, `"7"`. */
export function revisionTag(revision: number): string {
  return `"${String(revision)}"`;
}

/** Throws `precondition_failed` when the stream's revision is not one the precondition names. */
export function assertRevision(entry: StreamEntry, precondition: Precondition): void {
  if (precondition === undefined || precondition.revisions.includes(entry.revision)) return;
  const named = precondition.revisions.map(revisionTag);
  const current = revisionTag(entry.revision);
  throw new HeadsetdError(
    'precondition_failed',
    `The stream is at revision ${current}, not ${named.length === 0 ? 'one If-Match names' : named.join(' or ')}: it was edited since you read it, so this edit was not applied. Read it again (ETag ${current}) and redo the edit on what it holds now.`,
    { revision: entry.revision, ifMatch: named },
  );
}
