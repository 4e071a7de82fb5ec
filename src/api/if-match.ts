/**
 * The `If-Match` request header of stream edits (docs/api.md §Concurrent edits), read into the
 * revisions the client accepts editing; the `ETag` that names a stream's revision in answers; and
 * the refusal of an edit on a stale revision (streams/revision.ts), told in those HTTP terms.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { HeadsetdError } from '../core/errors.js';
import { type Precondition, RevisionMismatchError } from '../streams/revision.js';

/** The entity tag of a revision: a strong ETag, `"7"`. */
export function revisionTag(revision: number): string {
  return `"${String(revision)}"`;
}

/** One entity tag: optional weakness prefix, then a quoted opaque string (RFC 9110 §8.8.3). */
const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e]*)"$/;

/**
 * The request's If-Match: undefined when absent or `*` (the stream exists, or the route answered
 * 404 already). Weak tags never match (If-Match compares strongly), nor do tags that are not a
 * revision; a header that is not a list of entity tags is refused, since the client meant a
 * condition it did not manage to state.
 */
export function preconditionOf(request: FastifyRequest): Precondition {
  const raw = request.headers['if-match'];
  if (raw === undefined) return undefined;
  const header = Array.isArray(raw) ? raw.join(',') : raw;
  if (header.trim() === '*') return undefined;
  const revisions: number[] = [];
  for (const part of header.split(',')) {
    const match = ENTITY_TAG.exec(part.trim());
    if (match === null) {
      throw new HeadsetdError(
        'invalid_request',
        `If-Match must be * or a list of ETags such as "3" (quotes included), as a stream read answers; '${part.trim()}' is not one.`,
        { header: 'If-Match' },
      );
    }
    if (match[1] === undefined && /^[1-9]\d{0,15}$/.test(match[2] ?? '')) revisions.push(Number(match[2]));
  }
  return { revisions };
}

/**
 * An edit refused on a stale revision, told in the terms of the request: the ETags If-Match named,
 * the current one, and the header to send it back in (`details: {revision, ifMatch}`). Any other
 * error is answered as it is.
 */
export function inIfMatchTerms(error: HeadsetdError): HeadsetdError {
  if (!(error instanceof RevisionMismatchError)) return error;
  const named = error.expected.map(revisionTag);
  const current = revisionTag(error.revision);
  return new HeadsetdError(
    error.code,
    `The stream is at revision ${current}, not ${named.length === 0 ? 'one If-Match names' : named.join(' or ')}: it was edited since you read it, so this edit was not applied. Read it again (its ETag is ${current}) and redo the edit on what it holds now, sending If-Match: ${current}.`,
    { revision: error.revision, ifMatch: named },
  );
}

/** Sets the ETag of a stream revision on the answer. */
export function withRevision(reply: FastifyReply, revision: number): void {
  void reply.header('etag', revisionTag(revision));
}

/** The request header, documented on every edit route. */
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'Apply the edit only if the stream is still at this revision (its ETag, e.g. "3"); otherwise 412 precondition_failed and nothing changes.',
    }),
  ),
});

/** The response header, documented on stream reads and edits. */
export const ETAG_HEADER = {
  ETag: Type.String({
    description: 'The stream\'s revision, e.g. "3": send it back in If-Match to edit only that.',
  }),
};
