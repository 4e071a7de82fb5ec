/**
 * No two files of the service load each other, directly or through others. The layer rule
 * (layers.test.ts) keeps folders apart; within a folder, a cycle between files makes their load
 * order decide whether a value is defined yet, and ties files that could be read alone. Type-only
 * imports are erased by the compiler and are not edges (import-graph.ts).
 */
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

  it.each(['src', 'web/src'])('%s/ has none', (dir) => {
    const root = resolve(ROOT, dir);
    const found = cycles(importGraph(root, sourceFiles(root))).map((cycle) => cycle.join(' ↔ '));
    expect(found).toEqual([]);
  });
});
