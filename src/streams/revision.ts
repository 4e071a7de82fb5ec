/**
 * Optimistic concurrency for stream edits (docs/api.md §Concurrent edits): each stream has a
 * revision, answered as its ETag; an edit sent with `If-Match` applies only while the stream is
 * still at a revision the client named, so of two clients editing what they read, one wins and the
 * other is told to read again, instead of the last write silently undoing the first. Edits of a
 * stream run one after another (`queueEdit`), each checking its precondition in turn.
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

/**
 * Runs an edit after the previous edit of the stream has ended, live update included. Without
 * this, a second edit committed while the first one's live update was in flight, and the first
 * one's rollback then restored a definition that the second had built on (or the second's
 * rollback restored the first's failed one): an edit answered as refused could stay stored.
 * The precondition is checked here, in turn, so that of two edits of the same revision sent
 * together exactly one applies; the revision answered is the one this edit stored.
 */
export function queueEdit<T extends object>(
  entry: StreamEntry,
  precondition: Precondition,
  work: () => Promise<T>,
): Promise<T & { revision: number }> {
  const run = entry.edits.then(async () => {
    assertRevision(entry, precondition);
    const result = await work();
    return { ...result, revision: entry.revision };
  });
  entry.edits = run.then(
    () => undefined,
    () => undefined,
  );
  return run;
}
