/**
 * The docs point at the code by path (`src/device/kinds.ts`, `streams/runtime/pipe.ts`): a path
 * that no longer exists sends a reader nowhere, as a move of files can leave behind. Every path of
 * a source file the README and docs/ name, written from the repository root (`src/…`, `web/src/…`,
 * `test/…`, `scripts/…`) or from src/ (`device/kinds.ts`), names a file that is there.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGES = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
/** The top-level folders of src/: a path starting with one of them is read from src/. */
const SRC_FOLDERS = readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const PATH = /(?<![\w./-])((?:[\w-]+\/)+[\w.-]+\.(?:ts|tsx|mjs|wat|py|c))\b/g;

/** Where a path mentioned in a page points, or undefined for one not of this repository's code. */
function resolved(mentioned: string): string | undefined {
  const top = mentioned.split('/')[0] ?? '';
  if (['src', 'web', 'test', 'scripts', 'bench', 'examples', 'sdk'].includes(top)) return mentioned;
  if (SRC_FOLDERS.includes(top)) return `src/${mentioned}`;
  return undefined;
}

test('every source path the docs name exists', () => {
  const missing: string[] = [];
  for (const page of PAGES) {
    const text = readFileSync(path.join(ROOT, page), 'utf8');
    for (const match of text.matchAll(PATH)) {
      const file = resolved(match[1] as string);
      if (file !== undefined && !existsSync(path.join(ROOT, file))) missing.push(`${page}: ${match[1]}`);
    }
  }
  expect(missing).toEqual([]);
});
