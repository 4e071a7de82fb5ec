/**
 * Errors thrown to clients are classes of the catalogue (docs/architecture.md): lint refuses a
 * class extending one of the language's errors outside src/core/errors.ts (scripts/eslint-errors.mjs),
 * and every such class left in src/ says on the line before why it may stay.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, test } from 'vitest';
import { errorClassRule } from '../../scripts/eslint-errors.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');

// Only this rule, on a plain parser: what is checked is the rule, not the type-aware config.
const linter = new Linter({ configType: 'flat', cwd: ROOT });
function lint(file: string, source: string): string[] {
  return (
    linter
      .verify(
        source,
        [errorClassRule, { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }],
        {
          filename: path.join(ROOT, file),
        },
      )
      // Disable directives of rules this linter does not load (the type-aware ones) say so: not this rule's concern.
      .filter((message) => message.ruleId === 'no-restricted-syntax')
      .map((message) => `${file}:${String(message.line)}: ${message.message}`)
  );
}

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

describe('error classes', () => {
  test.each([
    ['src/streams/x.ts', 'export class StoreGoneError extends Error {}'],
    ['src/runtime/x.ts', 'export class TooSlow extends RangeError {}'],
    ['src/api/x.ts', 'export const Refused = class extends TypeError {};'],
    ['src/service/server-x.ts', 'class Late extends Error {}'],
  ])('%s: a class extending a built-in error is refused', (file, source) => {
    expect(lint(file, source)).toEqual([expect.stringContaining('catalogue error')]);
  });

  test.each([
    ['src/core/errors.ts', 'export class HeadsetdError extends Error {}'],
    [
      'src/streams/x.ts',
      "import { HeadsetdError } from '../core/errors.js';\nexport class GoneError extends HeadsetdError {}",
    ],
    ['src/client/x.ts', 'export class UsageError extends Error {}'],
    ['src/streams/x.test.ts', 'class Boom extends Error {}'],
  ])('%s: a catalogue class, the catalogue itself, the client and tests are allowed', (file, source) => {
    expect(lint(file, source)).toEqual([]);
  });

  test('every class extending a built-in error in src/ passes the rule (the few left say why)', () => {
    // Only the files that declare a subclass of something: linting all of src/ takes a minute on a busy machine.
    const refused = sources('src').flatMap((file) => {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      return /\bextends\b/.test(text) ? lint(file, text) : [];
    });
    expect(refused).toEqual([]);
  });
});
