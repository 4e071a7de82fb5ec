/**
 * A checkout stands on its own: a clone with no `shared` directory beside it ran 8 test files short
 * of their fixtures, because tests read recordings from that directory. Now no test, script,
 * benchmark or source file names a path there (only .ci/run may, to set HEADSETD_ORACLES, the one
 * way optional reference sources reach the tests), and every fixture the tests read from
 * test/fixtures/eeg is in the repository, listed in the README beside it with the checksum it has.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Where code that runs in a checkout lives, and the configuration that drives it. */
const CODE = [
  'test',
  'scripts',
  'bench',
  'src',
  'sdk',
  'examples',
  'web',
  'package.json',
  'vitest.config.ts',
];
/** This check's own files name the patterns they refuse. */
const OWN_FILES = ['test/docs/standalone.test.ts', 'test/docs/self-contained.test.ts'];
const SKIPPED_DIRS = new Set(['node_modules', '__pycache__', 'dist', '.git']);

/**
 * A path into a `shared` directory beside the checkout: `../shared`, `…/shared/…`, or `shared` as a
 * path segment of its own (`join(root, '..', 'shared')`).
 */
const SHARED = [/(^|[^\w-])(\.\.\/)+shared\b/, /[^\w.-]shared\//, /(['"`])shared\1/];

function filesUnder(path: string): string[] {
  const absolute = join(ROOT, path);
  if (!statSync(absolute).isDirectory()) return [path];
  return readdirSync(absolute, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory() && SKIPPED_DIRS.has(entry.name)) return [];
    if (!entry.isDirectory() && !entry.isFile()) return [];
    return filesUnder(`${path}/${entry.name}`);
  });
}

const FIXTURES = 'test/fixtures/eeg';

describe('a checkout with no shared directory beside it', () => {
  it('no test, script, benchmark or source file reads a path into the shared directory beside the checkout', () => {
    const found: string[] = [];
    for (const file of CODE.flatMap(filesUnder)) {
      if (OWN_FILES.includes(file)) continue;
      const bytes = readFileSync(join(ROOT, file));
      if (bytes.includes(0)) continue;
      bytes
        .toString('utf8')
        .split('\n')
        .forEach((line, i) => {
          if (SHARED.some((pattern) => pattern.test(line))) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('the EEG fixtures are in the repository, each with its row and its checksum in the README beside them', () => {
    const readme = readFileSync(join(ROOT, FIXTURES, 'README.md'), 'utf8');
    const files = readdirSync(join(ROOT, FIXTURES)).filter((name) => name !== 'README.md');
    const listed = new Map(
      [...readme.matchAll(/^([0-9a-f]{64}) {2}(\S+)$/gm)].map((m) => [m[2] as string, m[1] as string]),
    );
    const rows = new Set([...readme.matchAll(/^\| (\S+) \|/gm)].map((m) => m[1]));
    const problems: string[] = [];
    for (const name of files) {
      const sha = createHash('sha256')
        .update(readFileSync(join(ROOT, FIXTURES, name)))
        .digest('hex');
      if (!rows.has(name)) problems.push(`${name} has no row in the README's table`);
      if (!listed.has(name)) problems.push(`${name} has no checksum line in the README`);
      else if (listed.get(name) !== sha)
        problems.push(`${name}: the README says ${listed.get(name)}, the file is ${sha}`);
    }
    for (const name of listed.keys()) {
      if (!files.includes(name)) problems.push(`the README lists ${name}, which is not there`);
    }
    expect(problems).toEqual([]);
    // The files the tests read (test/formats/fixtures.ts) are among them.
    expect(files).toEqual(
      expect.arrayContaining([
        'test_edf_stim_channel.edf',
        'test_bdf_stim_channel.bdf',
        'biosemi_test.bdf',
        'S002R01.edf',
        'OpenBCI_GUI-v6-blinks-jawClench-alpha.txt',
      ]),
    );
  });
});
