/**
 * Regression: a deeply nested JSON body (an open `meta` or `config` holding 10^4 levels of `[`)
 * passed parsing and validation, then overflowed the stack in JSON.stringify when stored: a 500.
 */
import { describe, expect, it } from 'vitest';
import { assertYamlDepth, MAX_BODY_DEPTH } from '../../src/core/yaml-depth.js';
import { YamlDocumentError } from '../../src/core/yaml-error.js';
import { parseJsonText } from '../../src/platform/schemas/json-text.js';
import { assertDocument } from '../../src/platform/schemas/depth.js';
import { HeadsetdError } from '../../src/core/errors.js';
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

  it('YAML nested 800 levels is refused like JSON (regression: "Maximum call stack size exceeded")', async () => {
    const cp = await controlPlane();
    try {
      const inner = `{"a": ${'['.repeat(800)}${']'.repeat(800)}}`;
      const document = `{"id":"${STREAM_ID}","meta":{"x":${inner}}}`;
      const asYaml = expectError(
        await text(cp, 'POST', '/stream/streams/yaml', document, 'text/yaml'),
        400,
        'invalid_request',
      );
      const asJson = expectError(
        await text(cp, 'POST', '/stream/streams', document, 'application/json'),
        400,
        'invalid_request',
      );
      expect(asYaml.error.message).not.toMatch(/call stack/i);
      expect(asYaml.error.message).toBe(asJson.error.message);
      expect(asYaml.error.details?.path).toBe(asJson.error.details?.path);
      expect(asYaml.error.details).toMatchObject({ line: 1 });
      expect(cp.manager.list()).toEqual([]);
    } finally {
      await cp.close();
    }
  });

  it('block YAML (maps and "- - -" sequences) too deep points at the first value beyond the limit', async () => {
    const cp = await controlPlane();
    try {
      let mapping = '';
      for (let i = 0; i < 100; i++) mapping += `${' '.repeat(i)}k${i}:\n`;
      mapping += `${' '.repeat(100)}end: 1\n`;
      const deepMap = expectError(
        await text(cp, 'POST', '/stream/streams/yaml', mapping),
        400,
        'invalid_request',
      );
      const expected = Array.from({ length: MAX_BODY_DEPTH }, (_, i) => `/k${i}`).join('');
      expect(deepMap.error.details?.path).toBe(expected);
      expect(deepMap.error.details).toMatchObject({ line: MAX_BODY_DEPTH + 1 });

      const deepSeq = expectError(
        await text(cp, 'POST', '/stream/streams/yaml', `${'- '.repeat(100_000)}x\n`),
        400,
        'invalid_request',
      );
      expect(deepSeq.error.message).toContain(`${MAX_BODY_DEPTH} levels`);
      expect(deepSeq.error.details?.path).toBe('/0'.repeat(MAX_BODY_DEPTH));
    } finally {
      await cp.close();
    }
  });

  it('assertDocument counts objects and arrays, points at the first too-deep value, and is iterative', () => {
    expect(() => {
      assertDocument({ a: nested(MAX_BODY_DEPTH - 1) });
    }).not.toThrow();
    let thrown: unknown;
    try {
      assertDocument({ 'a/b': nested(MAX_BODY_DEPTH) });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HeadsetdError);
    const path = (thrown as HeadsetdError).details?.path as string;
    expect(path.startsWith('/a~1b/0')).toBe(true);
    expect(path.split('/').length - 1).toBe(MAX_BODY_DEPTH);
    // A million levels: no stack overflow in the check itself.
    expect(() => {
      assertDocument(nested(1_000_000));
    }).toThrow(HeadsetdError);
    for (const scalar of [undefined, null, 1, 'x', true]) assertDocument(scalar);
  });

  it('brackets and dashes that are text (quoted, in a block scalar, in a comment, a plain scalar) are not nesting; a deep culprit is found at the same place however much follows it', () => {
    const many = '['.repeat(200) + '-'.repeat(5);
    const texts = [
      `a: "${many}"\n`,
      `a: '${many}'\n`,
      `a: |\n  ${many}\n  ${'- '.repeat(100)}\n`,
      `a: 1 # ${many}\n`,
      `a: x${many}\n`,
      `${'- '.repeat(MAX_BODY_DEPTH)}x\n`,
      `a: ${'['.repeat(MAX_BODY_DEPTH - 1)}${']'.repeat(MAX_BODY_DEPTH - 1)}\n`,
    ];
    for (const text of texts) {
      expect(
        () => {
          assertYamlDepth(text);
        },
        text.slice(0, 40),
      ).not.toThrow();
    }

    const refusal = (text: string) => {
      try {
        assertYamlDepth(text);
      } catch (error) {
        expect(error).toBeInstanceOf(YamlDocumentError);
        return (error as YamlDocumentError).place;
      }
      throw new Error('not refused');
    };
    // The lexer finds the culprit and the tree is built of the text up to it: the pointer, line and
    // column are those of the whole text's walk (the same culprit, deep in a longer body).
    const deepFlow = `id: s\nmeta:\n  x: ${'['.repeat(MAX_BODY_DEPTH + 1)}`;
    const deepDash = `k:\n  ${'- '.repeat(MAX_BODY_DEPTH + 1)}`;
    expect(refusal(`${deepFlow}${'['.repeat(50_000)}${']'.repeat(50_000 + MAX_BODY_DEPTH + 1)}\n`)).toEqual(
      refusal(`${deepFlow}${']'.repeat(MAX_BODY_DEPTH + 1)}\n`),
    );
    expect(refusal(`${deepDash}${'- '.repeat(50_000)}x\n`)).toEqual(refusal(`${deepDash}x\n`));
    expect(refusal(`${deepDash}x\n`)).toMatchObject({
      path: `/k${'/0'.repeat(MAX_BODY_DEPTH - 1)}`,
      line: 2,
    });
  });

  it('JSON: brackets in strings (escaped quotes too) are not nesting; a deep culprit is refused at the same pointer however much follows it, and malformed text before it is still malformed', () => {
    const many = '['.repeat(200);
    for (const text of [`{"a":"${many}"}`, `{"a":"\\"${many}\\\\","b":[1]}`, `{"${many}":1}`]) {
      expect(parseJsonText(text), text.slice(0, 30)).toBeTypeOf('object');
    }
    const refusal = (text: string) => {
      try {
        parseJsonText(text);
      } catch (error) {
        expect(error).toBeInstanceOf(HeadsetdError);
        return { message: (error as HeadsetdError).message, details: (error as HeadsetdError).details };
      }
      throw new Error('not refused');
    };
    const head = `{"id":"s","meta":{"a/b":[1,{"q":"]]]"},${'['.repeat(MAX_BODY_DEPTH)}`;
    const short = refusal(`${head}${']'.repeat(MAX_BODY_DEPTH)}]}}`);
    expect(short.details?.path).toBe(`/meta/a~1b/2${'/0'.repeat(MAX_BODY_DEPTH - 3)}`);
    expect(refusal(`${head}${'['.repeat(50_000)}${']'.repeat(50_000 + MAX_BODY_DEPTH)}]}}`)).toEqual(short);
    expect(refusal(`{"a": tru, "b": ${'['.repeat(100)}`).message).toContain('malformed');
  });
});
