/**
 * The repository's documentation stands on its own: nothing a user reads (docs/, README.md, the
 * comments of src/, sdk/, examples/, bench/) sends them to material they do not have (the team's
 * notes, design or reference files, issue numbers, paths into the team's shared directory), and
 * every relative link of docs/*.md and README.md leads to a file, and to a heading, that exists.
 * Tests are held to the same rule: their fixtures are in the repository (test/fixtures), and that
 * no code reads the shared directory is checked in standalone.test.ts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headingAnchors, relativeLinks } from './markdown.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** Names of outside material, refused everywhere checked. */
const OUTSIDE_NAMES: readonly { what: string; pattern: RegExp }[] = [
  { what: 'the team notes file', pattern: /API[-_ ]NOTES/i },
  { what: 'the team design file', pattern: /\bDESIGN\.md\b/i },
  { what: 'the reference file', pattern: /\bREFERENCE\.md\b|\bREFERENCE §/ },
  { what: 'an issue number', pattern: /\bissues? #?\d/i },
];
/** A path into the team's shared directory (`shared/…`, `../shared/…`). */
const SHARED_PATH = /(^|[^\w-])(\.\.\/)*shared\//;

/** Where users read, and the tests: every outside name and every shared path is refused. */
const CHECKED = ['docs', 'src', 'sdk', 'examples', 'bench', 'README.md', 'test'];
/** This check's own files name the patterns they refuse. */
const OWN_FILES = 'test/docs/';

/**
 * Files that another change rewrites at the same time and that still cite outside material; their
 * citations are replaced in a change of their own. An entry must still have something to replace
 * (see the last test), so this list only shrinks.
 */
const PENDING: readonly string[] = [];

const SKIPPED_DIRS = new Set(['node_modules', '__pycache__', 'dist', '.git']);

function filesUnder(path: string): string[] {
  const absolute = join(ROOT, path);
  if (!statSync(absolute).isDirectory()) return [path];
  return readdirSync(absolute, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory() && SKIPPED_DIRS.has(entry.name)) return [];
    if (!entry.isDirectory() && !entry.isFile()) return [];
    return filesUnder(`${path}/${entry.name}`);
  });
}

/** The file's text, or undefined for a binary file. */
function textOf(path: string): string | undefined {
  const bytes = readFileSync(join(ROOT, path));
  return bytes.includes(0) ? undefined : bytes.toString('utf8');
}

interface Citation {
  file: string;
  line: number;
  what: string;
  text: string;
}

function citationsIn(file: string): Citation[] {
  const text = textOf(file);
  if (text === undefined) return [];
  const found: Citation[] = [];
  text.split('\n').forEach((line, i) => {
    const checks = [...OUTSIDE_NAMES, { what: 'a path into the shared directory', pattern: SHARED_PATH }];
    for (const { what, pattern } of checks) {
      if (pattern.test(line)) found.push({ file, line: i + 1, what, text: line.trim() });
    }
  });
  return found;
}

function allCitations(): Citation[] {
  return CHECKED.flatMap(filesUnder)
    .filter((file) => !file.startsWith(OWN_FILES))
    .flatMap(citationsIn);
}

const isPending = (file: string): boolean => PENDING.some((entry) => file.startsWith(entry));
const describeCitation = (c: Citation): string => `${c.file}:${c.line} cites ${c.what}: ${c.text}`;

const MARKDOWN_PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

describe('the documentation stands on its own', () => {
  it('docs, README, src, sdk, examples, bench and tests cite no outside notes, issues or shared paths', () => {
    const citations = allCitations().filter((c) => !isPending(c.file));
    expect(citations.map(describeCitation)).toEqual([]);
  });

  it.each(MARKDOWN_PAGES)('every relative link of %s leads to a file and a heading that exist', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const broken: string[] = [];
    for (const { target, line } of relativeLinks(text)) {
      const [pathPart = '', anchor] = target.split('#', 2);
      const linked = pathPart === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), decodeURI(pathPart));
      const shown = `${page}:${line} → ${target}`;
      let isFile: boolean;
      try {
        isFile = statSync(linked).isFile();
      } catch {
        broken.push(`${shown}: ${relative(ROOT, linked)} does not exist`);
        continue;
      }
      if (anchor !== undefined && isFile && linked.endsWith('.md')) {
        if (!headingAnchors(readFileSync(linked, 'utf8')).has(anchor)) {
          broken.push(`${shown}: ${relative(ROOT, linked)} has no heading with the anchor #${anchor}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('each PENDING entry still has a citation to replace (remove the entry once it has none)', () => {
    const citations = allCitations();
    const done = PENDING.filter((entry) => !citations.some((c) => c.file.startsWith(entry)));
    expect(done).toEqual([]);
  });
});
