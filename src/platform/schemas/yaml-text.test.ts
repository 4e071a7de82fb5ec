/**
 * The YAML parser's refusals as the API, `headsetd validate` and the settings file give them:
 * `invalid_request` with the parser's sentence and its place (line, column, pointer) in details.
 */
import { describe, expect, it } from 'vitest';
import { HeadsetdError } from '../../core/errors.js';
import { parseYamlText } from './yaml-text.js';
import { httpStatus } from '../http/statuses.js';

function refusal(text: string): HeadsetdError {
  try {
    parseYamlText(text);
  } catch (error) {
    if (error instanceof HeadsetdError) return error;
    throw error;
  }
  throw new Error(`accepted: ${text}`);
}

describe('parseYamlText', () => {
  it('parses plain YAML 1.2', () => {
    expect(parseYamlText('a: [1, x]\n')).toEqual({ a: [1, 'x'] });
  });

  it('refuses a list or map as a mapping key (it was stringified, with a process warning per body)', async () => {
    const warnings: Error[] = [];
    const listen = (warning: Error) => warnings.push(warning);
    process.on('warning', listen);
    try {
      for (const text of ['? [a]\n: 1\n', 'x:\n  ? {b: 1}\n  : 2\n', 'k: &k [1]\n*k : 2\n']) {
        const error = refusal(text);
        expect(error.code).toBe('invalid_request');
        expect(error.message).toMatch(/a mapping key is a list or a map; keys must be strings/);
        expect(error.details).toHaveProperty('line');
      }
      // Process warnings are emitted on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listen);
    }
    expect(warnings).toEqual([]);
    expect(parseYamlText('? a\n: 1\n1: x\n')).toEqual({ a: 1, 1: 'x' });
  });

  it('answers malformed YAML as invalid_request with line and column', () => {
    const error = refusal('a: 1\na: 2\n');
    expect(error.code).toBe('invalid_request');
    expect(httpStatus(error)).toBe(400);
    expect(error.details).toEqual({ line: 2, column: 1 });
    expect(error.message).toMatch(/^The YAML body is malformed at line 2, column 1: /);
  });

  it('answers a foreign tag as invalid_request naming the tag', () => {
    const error = refusal('a: !!binary aGVsbG8=\n');
    expect(error.code).toBe('invalid_request');
    expect(error.details).toMatchObject({ line: 1 });
    expect(error.message).toContain('tag:yaml.org,2002:binary');
  });

  it('answers a document nested too deep with the pointer, line and column of the culprit', () => {
    const error = refusal(`a: ${'['.repeat(70)}${']'.repeat(70)}\n`);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe('The document is nested more than 64 levels deep; flatten it.');
    expect(error.details).toMatchObject({ path: expect.stringMatching(/^\/a(\/0)+$/), line: 1 });
  });
});
