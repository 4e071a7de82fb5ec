/**
 * Regression: a deeply nested JSON body (an open `meta` or `config` holding 10^4 levels of `[`)
 * passed parsing and validation, then overflowed the stack in JSON.stringify when stored: a 500.
 */
import { describe, expect, it } from 'vitest';
import { assertDepth, MAX_BODY_DEPTH } from '../../src/schemas/depth.js';
import { HeadsetdError } from '../../src/errors.js';
import { controlPlane, STREAM_ID } from '../support/control-plane.js';
import { expectError, text } from './helpers.js';

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('body nesting depth', () => {
  it('deeply nested JSON is refused with 400 instead of overflowing the stack (500) when stored', async () => {
    const cp = await controlPlane();
    try {
      const deep = `{"id":"${STREAM_ID}","meta":{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
      const error = expectError(
        await text(cp, 'POST', '/stream/streams', deep, 'application/json'),
        400,
        'invalid_request',
      );
      expect(error.error.message).toContain(`${MAX_BODY_DEPTH} levels`);
      expect(cp.manager.list()).toEqual([]);
    } finally {
      await cp.close();
    }
  });

  it('assertDepth counts objects and arrays, points at the first too-deep value, and is iterative', () => {
    expect(() => {
      assertDepth({ a: nested(MAX_BODY_DEPTH - 1) });
    }).not.toThrow();
    let thrown: unknown;
    try {
      assertDepth({ 'a/b': nested(MAX_BODY_DEPTH) });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HeadsetdError);
    const path = (thrown as HeadsetdError).details?.path as string;
    expect(path.startsWith('/a~1b/0')).toBe(true);
    expect(path.split('/').length - 1).toBe(MAX_BODY_DEPTH);
    // A million levels: no stack overflow in the check itself.
    expect(() => {
      assertDepth(nested(1_000_000));
    }).toThrow(HeadsetdError);
    for (const scalar of [undefined, null, 1, 'x', true]) assertDepth(scalar);
  });
});
