/**
 * Optimistic concurrency for stream edits (docs/api.md §Concurrent edits): each stream has a
 * revision, 1 when created and one more per edit stored; an edit may name the revisions it was
 * made on, and then applies only while the stream is still at one of them, so of two clients
 * editing what they read, one wins and the other is told to read again, instead of the last write
 * silently undoing the first. Edits of a stream run one after another (`queueEdit`), each checking
 * its precondition in turn. How a client names revisions (HTTP's If-Match and ETag) is the API's
 * part (api/if-match.ts), which also words the refusal in those terms.
 */
import { HeadsetdError } from '../core/errors.js';
import type { StreamEntry } from './entry.js';

/** The revisions an edit may apply to; undefined when the edit names none (it applies to any). */
export type Precondition = { readonly revisions: readonly number[] } | undefined;

/**
 * An edit named revisions the stream is no longer at: it was edited since the client read it, and
 * this edit was not applied (`precondition_failed`).
 */
export class RevisionMismatchError extends HeadsetdError {
  /** The revision the stream is at. */
  readonly revision: number;
  /** The revisions the edit named (none when it named only values that are no revision). */
  readonly expected: readonly number[];

  constructor(revision: number, expected: readonly number[]) {
    const named = expected.length === 0 ? 'a revision the edit named' : expected.join(' or ');
    super(
      'precondition_failed',
      `The stream is at revision ${revision}, not ${named}: it was edited since it was read, so this edit was not applied. Read it again and redo the edit on what it holds now, naming revision ${revision}.`,
      { revision, expected: [...expected] },
    );
    this.name = 'RevisionMismatchError';
    this.revision = revision;
    this.expected = expected;
  }
}

/** Throws a {@link RevisionMismatchError} when the stream's revision is not one the precondition names. */
export function assertRevision(entry: StreamEntry, precondition: Precondition): void {
  if (precondition === undefined || precondition.revisions.includes(entry.revision)) return;
  throw new RevisionMismatchError(entry.revision, precondition.revisions);
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
