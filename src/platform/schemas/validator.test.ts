/**
 * The one translation of schema errors into the envelope: pointers, messages, and which problem
 * leads when a document has several (docs/api.md §Errors).
 */
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { check, type Issue, issuesToError } from './validator.js';
import { httpStatus } from '../http/statuses.js';

const Shape = Type.Object(
  {
    name: Type.String(),
    count: Type.Integer({ minimum: 1, maximum: 10 }),
    kind: Type.Optional(Type.Enum(['a', 'b'])),
    items: Type.Optional(Type.Array(Type.Object({ 'a/b': Type.Number() }, { additionalProperties: false }))),
  },
  { additionalProperties: false },
);

describe('check', () => {
  it('gives a pointer and a sentence per problem', () => {
    expect(check(Shape, { name: 'x', count: 3 })).toEqual([]);
    expect(check(Shape, { count: 3 })).toEqual([
      { path: '/name', message: "'name' is required", code: 'invalid_request' },
    ]);
    expect(check(Shape, { name: 5, count: 3 })).toEqual([
      { path: '/name', message: 'must be a string, got a number', code: 'invalid_request' },
    ]);
    expect(check(Shape, { name: 'x', count: 30 })).toEqual([
      { path: '/count', message: 'must be <= 10, got 30', code: 'validation_failed' },
    ]);
    expect(check(Shape, { name: 'x', count: 1, kind: 'c' })).toEqual([
      { path: '/kind', message: 'must be one of "a", "b", got "c"', code: 'validation_failed' },
    ]);
  });

  it('a value that breaks several bounds of one schema is one problem (sampleRate: 0 was answered twice)', () => {
    const Rate = Type.Object({ rate: Type.Number({ exclusiveMinimum: 0, minimum: 1 }) });
    expect(check(Rate, { rate: 0 })).toEqual([
      { path: '/rate', message: 'must be >= 1, got 0', code: 'validation_failed' },
    ]);
  });

  it('unknown-field messages list the known fields (needs the parent schema in ajv errors)', () => {
    expect(check(Shape, { name: 'x', count: 3, extra: 1 })).toEqual([
      {
        path: '/extra',
        message: "'extra' is not a known field; known fields: name, count, kind, items",
        code: 'invalid_request',
      },
    ]);
  });

  it('escapes pointer tokens and prefixes a base path', () => {
    const issues = check(
      Shape,
      { name: 'x', count: 1, items: [{ 'a/b': 'no' }, { c: 1 }] },
      '/nodes/2/config',
    );
    expect(issues.map((i) => i.path)).toEqual([
      '/nodes/2/config/items/0/a~1b',
      '/nodes/2/config/items/1/a~1b',
      '/nodes/2/config/items/1/c',
    ]);
  });
});

describe('issuesToError', () => {
  const issue = (code: Issue['code'], path: string): Issue => ({ path, message: `${code} here`, code });

  it('a malformed problem leads, even after a 403 or an unknown executable', () => {
    // A document that is both malformed and names a forbidden program is a 400: the client must
    // fix its shape first, and the answer must not depend on the order the checks ran in.
    const error = issuesToError(
      [
        issue('executable_not_allowed', '/nodes/0/executable'),
        issue('unknown_executable', '/nodes/1/executable'),
        issue('validation_failed', '/nodes/2/config/x'),
        issue('invalid_request', '/pipes/0/destination'),
      ],
      'The stream',
    );
    expect(error.code).toBe('invalid_request');
    expect(httpStatus(error)).toBe(400);
    expect(error.message).toBe(
      'The stream at /pipes/0/destination: invalid_request here (and 3 more problems).',
    );
    expect(error.details).toEqual({
      path: '/pipes/0/destination',
      errors: [
        { path: '/nodes/0/executable', message: 'executable_not_allowed here' },
        { path: '/nodes/1/executable', message: 'unknown_executable here' },
        { path: '/nodes/2/config/x', message: 'validation_failed here' },
        { path: '/pipes/0/destination', message: 'invalid_request here' },
      ],
    });
  });

  it('without a malformed problem, a specific code leads over validation_failed', () => {
    const error = issuesToError([issue('validation_failed', '/a'), issue('unknown_executable', '/b')]);
    expect(error.code).toBe('unknown_executable');
    expect(error.message).toBe('The request at /b: unknown_executable here (and 1 more problem).');
  });

  it('one problem at the root names the subject', () => {
    const error = issuesToError([issue('validation_failed', '')], 'The body');
    expect(error.message).toBe('The body: validation_failed here.');
  });
});
