/**
 * YAML bodies (docs/api.md §Requests): YAML 1.2 core schema only, one document, duplicate keys and
 * alias bombs refused, every refusal a YamlDocumentError with the position where there is one
 * (platform/schemas/yaml-text.test.ts: which the API answers as 400 invalid_request).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseYaml, toYaml } from './yaml.js';
import { YamlDocumentError } from './yaml-error.js';

function refusal(text: string): YamlDocumentError {
  try {
    parseYaml(text);
  } catch (error) {
    if (error instanceof YamlDocumentError) return error;
    throw error;
  }
  throw new Error(`accepted: ${text}`);
}

describe('parseYaml', () => {
  it('parses YAML 1.2 core: yes/no/on are strings, 0o17 is octal, ~ is null', () => {
    expect(parseYaml('a: yes\nb: off\nc: 0o17\nd: ~\ne: 1.5e3\nf: "x"\n')).toEqual({
      a: 'yes',
      b: 'off',
      c: 15,
      d: null,
      e: 1500,
      f: 'x',
    });
  });

  it('tags outside the core schema are refused, with the position of the tagged value', () => {
    for (const [text, tag] of [
      ['a: 1\nb: !foo bar\n', '!foo'],
      ['a: 1\nb: !!binary aGVsbG8=\n', 'tag:yaml.org,2002:binary'],
      ['a: 1\nb: !!set {x}\n', 'tag:yaml.org,2002:set'],
      ['a: 1\nb: !!timestamp 2001-12-14\n', 'tag:yaml.org,2002:timestamp'],
      ['a: 1\nb: !!omap [x: 1]\n', 'tag:yaml.org,2002:omap'],
      ['a: 1\nb: [1, !!js/function "f()"]\n', 'tag:yaml.org,2002:js/function'],
    ] as const) {
      const error = refusal(text);
      expect(error.refusal, text).toBe('foreign_tag');
      expect(error.place).toMatchObject({ line: 2, column: expect.any(Number) });
      expect(error.message).toContain(tag);
    }
  });

  it('the core schema tags themselves are plain YAML', () => {
    expect(parseYaml('a: !!str 5\nb: !!int "7"\nc: !!map {x: !!seq [1]}\nd: !!null ""\n')).toEqual({
      a: '5',
      b: 7,
      c: { x: [1] },
      d: null,
    });
  });

  it('more than one document is refused with a message for a person', () => {
    const error = refusal('a: 1\n---\nb: 2\n');
    expect(error.refusal).toBe('malformed');
    expect(error.place).toEqual({ line: 2, column: 1 });
    expect(error.message).toMatch(/more than one document/);
    expect(error.message).not.toMatch(/parseAllDocuments/);
  });

  it('duplicate keys and alias bombs are refused', () => {
    expect(refusal('a: 1\na: 2\n').place).toEqual({ line: 2, column: 1 });
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++)
      bomb.push(
        `l${i}: &l${i} [${Array(10)
          .fill(i === 1 ? '*a' : `*l${i - 1}`)
          .join(', ')}]`,
      );
    const bombed = refusal(bomb.join('\n'));
    expect(bombed.refusal).toBe('aliases');
    expect(bombed.message).toMatch(/alias/i);
  });

  it('round-trips what toYaml writes', () => {
    const value = {
      id: 'x',
      meta: { tags: ['a', 'yes'], n: 1, empty: null },
      nodes: [{ id: 'n', config: {} }],
    };
    expect(parseYaml(toYaml(value))).toEqual(value);
  });

  it('round-trips any JSON value through toYaml and parseYaml (export, then import)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        expect(parseYaml(toYaml(value))).toEqual(value);
      }),
      { numRuns: 500 },
    );
  });
});
