/**
 * The graph of imports between the files of a source tree, read with the TypeScript parser, and
 * the cycles in it. An edge is a relative import: static imports, re-exports and dynamic
 * `import()`, which are loaded when the program runs, and (with `types`) the type-only ones too
 * (`import type`, `export type`, an import whose every name is `type`, `import('./x.js').X` in a
 * type): the compiler erases those, so they order no module's loading, but two files that name
 * each other's types still cannot be read, moved or changed one without the other.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Every `.ts` file below `dir` (tests excluded: nothing of the program imports them). */
export function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) files.push(...sourceFiles(full));
    else if (/\.tsx?$/.test(entry) && !entry.endsWith('.d.ts') && !/\.test\.tsx?$/.test(entry))
      files.push(full);
  }
  return files;
}

function typeOnly(clause: ts.ImportClause | undefined): boolean {
  if (clause === undefined) return false; // `import './x.js'` runs the module
  if (clause.phaseModifier === ts.SyntaxKind.TypeKeyword) return true;
  if (clause.name !== undefined) return false;
  const bindings = clause.namedBindings;
  return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0
    ? bindings.elements.every((element) => element.isTypeOnly)
    : false;
}

/** A file's relative specifiers: those it loads at run time, and all (type-only ones included). */
interface Specifiers {
  source: string;
  runtime: string[];
  all: string[];
}

/**
 * The last reading of each file, by name: the same text is parsed once for both kinds of edge and
 * for every test that asks (the in-process tests share one module instance per worker).
 */
const readings = new Map<string, Specifiers>();

function parseSpecifiers(source: string, fileName: string): Specifiers {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, kind);
  const runtime: string[] = [];
  const all: string[] = [];
  const found = (specifier: string, typesOnly: boolean): void => {
    all.push(specifier);
    if (!typesOnly) runtime.push(specifier);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      found(node.moduleSpecifier.text, typeOnly(node.importClause));
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const allTypes =
        node.isTypeOnly ||
        (node.exportClause !== undefined &&
          ts.isNamedExports(node.exportClause) &&
          node.exportClause.elements.length > 0 &&
          node.exportClause.elements.every((element) => element.isTypeOnly));
      found(node.moduleSpecifier.text, allTypes);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found(node.argument.literal.text, true);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  const relativeOnly = (list: string[]) => list.filter((specifier) => specifier.startsWith('.'));
  return { source, runtime: relativeOnly(runtime), all: relativeOnly(all) };
}

/** The relative specifiers a file loads at run time (with `types`, also those it imports types from). */
export function runtimeImports(source: string, fileName = 'x.ts', types = false): string[] {
  let reading = readings.get(fileName);
  if (reading?.source !== source) {
    reading = parseSpecifiers(source, fileName);
    readings.set(fileName, reading);
  }
  return [...(types ? reading.all : reading.runtime)];
}

/** The file of `known` an import names: `./a.js` is a.ts or a.tsx, `./a` (the bundler's form) too. */
function target(known: ReadonlySet<string>, path: string): string | undefined {
  const stem = path.replace(/\.(js|jsx|ts|tsx)$/, '');
  return [`${stem}.ts`, `${stem}.tsx`, `${stem}/index.ts`, `${stem}/index.tsx`].find((file) =>
    known.has(file),
  );
}

/** File → the files of `files` it loads (with `types`, or imports types from), paths relative to `root`. */
export function importGraph(root: string, files: readonly string[], types = false): Map<string, string[]> {
  const known = new Set(files.map((file) => relative(root, file)));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = runtimeImports(readFileSync(file, 'utf8'), file, types)
      .map((specifier) => target(known, relative(root, resolve(dirname(file), specifier))))
      .filter((found) => found !== undefined);
    graph.set(relative(root, file), [...new Set(targets)]);
  }
  return graph;
}

/** The cycles of a graph: each strongly connected set of two or more files (or a file importing itself), sorted. */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
