/**
 * A stale edit is refused in the streams layer's own terms: the revision the stream is at and the
 * ones the edit named, with no HTTP header in the message (it spoke of ETag and If-Match, which
 * only the API knows; api/if-match.ts words the answer for HTTP clients).
 */
import { describe, expect, it } from 'vitest';
import type { StreamEntry } from './entry.js';
import { assertRevision, RevisionMismatchError } from './revision.js';

const at = (revision: number) => ({ revision }) as StreamEntry;

describe('assertRevision', () => {
  it('lets an edit through at a revision it names, or when it names none', () => {
    expect(() => {
      assertRevision(at(3), { revisions: [2, 3] });
    }).not.toThrow();
    expect(() => {
      assertRevision(at(3), undefined);
    }).not.toThrow();
  });

  it('refuses a stale edit in terms of revisions, without HTTP words, with the revisions as fields', () => {
    let error: unknown;
    try {
      assertRevision(at(3), { revisions: [1, 2] });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(RevisionMismatchError);
    const mismatch = error as RevisionMismatchError;
    expect(mismatch.code).toBe('precondition_failed');
    expect(mismatch.revision).toBe(3);
    expect(mismatch.expected).toEqual([1, 2]);
    expect(mismatch.message).toBe(
      'The stream is at revision 3, not 1 or 2: it was edited since it was read, so this edit was not applied. Read it again and redo the edit on what it holds now, naming revision 3.',
    );
    expect(mismatch.message).not.toMatch(/ETag|If-Match|header/i);
    expect(mismatch.details).toEqual({ revision: 3, expected: [1, 2] });
  });

  it('says so when the edit named no revision at all (only values that are none)', () => {
    expect(() => {
      assertRevision(at(3), { revisions: [] });
    }).toThrow(/at revision 3, not a revision the edit named/);
  });
});
