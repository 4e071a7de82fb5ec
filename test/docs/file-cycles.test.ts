/**
 * No two files of the service import each other, directly or through others, not even for types.
 * The layer rule (layers.test.ts) keeps folders apart; within a folder, a cycle between files makes
 * their load order decide whether a value is defined yet, and ties files that could be read alone.
 * A type-only import is erased by the compiler and orders no loading, but it ties the two files
 * all the same: a type both need lives in a file both import (import-graph.ts).
 */
import { CPU_BOUND_TIMEOUT_MS } from '../support/wait.js';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, runtimeImports, sourceFiles } from './import-graph.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('import cycles between files', () => {
  it('reads the imports a file loads, and leaves out those the compiler erases', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import { type C, type D } from './c.js';",
      "import { type E, e } from './e.js';",
      "import './f.js';",
      "export { g } from './g.js';",
      "export type { H } from './h.js';",
      "export * from './i.js';",
      "const j = await import('./j.js');",
      "type K = import('./k.js').K;",
      "import { readFileSync } from 'node:fs';",
    ].join('\n');
    expect(runtimeImports(source)).toEqual(['./a.js', './e.js', './f.js', './g.js', './i.js', './j.js']);
    expect(runtimeImports(source, 'x.ts', true)).toEqual([
      './a.js',
      './b.js',
      './c.js',
      './e.js',
      './f.js',
      './g.js',
      './h.js',
      './i.js',
      './j.js',
      './k.js',
    ]);
  });

  it('finds a cycle through several files, and a file that imports itself', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });

  it("sees the dashboard's imports, written without an extension", () => {
    const root = resolve(ROOT, 'web/src');
    const graph = importGraph(root, sourceFiles(root));
    expect(graph.get('panels/streams.tsx')).toContain('api.ts');
  });

  // Parses every module of the tree with the TypeScript compiler: bound by CPU (CPU_BOUND_TIMEOUT_MS).
  it.each(['src', 'web/src'])(
    '%s/ has none of run-time imports',
    { timeout: CPU_BOUND_TIMEOUT_MS },
    (dir) => {
      const root = resolve(ROOT, dir);
      const found = cycles(importGraph(root, sourceFiles(root))).map((cycle) => cycle.join(' ↔ '));
      expect(found).toEqual([]);
    },
  );

  // There were five, all of types: the /system routes and their plugin (SystemContext), the
  // OpenAPI examples and their index, the replay recording and its triggers (ReplayMarker), the
  // node runner and its signals, the database and its storage errors.
  it.each(['src', 'web/src'])('%s/ has none, type-only imports included', (dir) => {
    const root = resolve(ROOT, dir);
    const found = cycles(importGraph(root, sourceFiles(root), true)).map((cycle) => cycle.join(' ↔ '));
    expect(found).toEqual([]);
  });
});
