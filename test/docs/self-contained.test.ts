/**
 * The repository stands on its own: its docs and code cite only what is in it (a user of the
 * repository has no team notes beside it), and every relative link between its pages resolves.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

function tracked(...pathspecs: string[]): string[] {
  return execFileSync('git', ['ls-files', '--', ...pathspecs], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f !== '' && existsSync(path.join(root, f)));
}

/** Names of files that live outside the repository, as docs and comments used to cite them. */
const OUTSIDE =
  /API-NOTES|DESIGN\.md|REFERENCE\.md|\bshared\/(fixtures|oracles|research|hooks)\b|\.\.\/shared\b/;

describe('the repository stands on its own', () => {
  it('no doc, source, SDK, example or benchmark cites a file outside the repository', () => {
    const offenders: string[] = [];
    for (const file of tracked('docs', 'src', 'sdk', 'examples', 'bench', 'README.md')) {
      const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (OUTSIDE.test(line)) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });

  it('every relative link in README.md and docs/ points at a file that exists', () => {
    const broken: string[] = [];
    for (const file of tracked('README.md', 'docs/*.md')) {
      const text = readFileSync(path.join(root, file), 'utf8');
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1]!.split('#')[0]!;
        if (target === '' || /^[a-z]+:/i.test(target)) continue; // same page, or a URL
        if (!existsSync(path.resolve(root, path.dirname(file), target))) broken.push(`${file}: ${match[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
