import { describe, expect, test } from 'vitest';
import { errorMessage } from './error-message.js';

describe('errorMessage', () => {
  test.each([
    [new Error('disk full'), 'disk full'],
    [new TypeError('not a function'), 'not a function'],
    ['plain text', 'plain text'],
    [42, '42'],
    [{ code: 'E' }, 'unknown error'],
    [undefined, 'unknown error'],
    [null, 'unknown error'],
  ])('%o → %s', (thrown, text) => {
    expect(errorMessage(thrown)).toBe(text);
  });
});
