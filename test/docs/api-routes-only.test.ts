/**
 * src/api/ holds routes, schemas, OpenAPI and answer shaping only (docs/architecture.md): a route
 * parses, calls one service method and shapes the answer. The services are built once, by the
 * composition root (src/service/server.ts and src/service/services.ts), and handed to the plugins. Checked here on
 * the TypeScript of every module of src/api/ (its own `*.test.ts` files excepted), with the type
 * checker resolving what each name refers to. Refused:
 *
 * - **Construction of a service**: `new X(...)` where the class X is declared in a module of src/
 *   outside src/api/ (followed through imports and re-exports), unless its name ends in `Error`
 *   (a route throws the catalogue's errors). Allowed: classes declared in src/api/ itself (answer
 *   shaping such as the status-answer memo or the route table), the language's and Node's own
 *   (Map, Set, URL, Promise, ...) and those of npm packages (Ajv, Fastify's LogController).
 * - **A timer**: a call of `setTimeout`, `setInterval` or `setImmediate` (bare or as a property,
 *   `globalThis.setTimeout`), of `AbortSignal.timeout`, and any import of `timers` or
 *   `timers/promises` (with or without `node:`). Waiting belongs to the services.
 * - **A waiting loop**: `while (...)`, `do ... while (...)` and a `for (...; ...; ...)` without a
 *   condition (`for (;;)`). A `for ... of` / `for ... in` over a finite collection, or a counted
 *   `for` with its condition, shapes an answer and is allowed.
 */
import { CPU_BOUND_TIMEOUT_MS } from '../support/wait.js';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { parsedOnceHost } from '../support/parsed-once.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');
const API = path.join(SRC, 'api');

const TIMER_CALLS = new Set(['setTimeout', 'setInterval', 'setImmediate']);
const TIMER_MODULES = new Set(['timers', 'timers/promises', 'node:timers', 'node:timers/promises']);

function apiModules(dir = API): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return apiModules(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [file] : [];
  });
}

const inside = (file: string, dir: string): boolean => !path.relative(dir, file).startsWith('..');

/**
 * The refusals of the rules above in `files`, as `path:line: what`. `probes` adds modules that
 * exist only in memory (path → source), to check that the rules catch what they describe.
 */
function refusals(files: readonly string[], probes: Readonly<Record<string, string>> = {}): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    // Neither the language's nor Node's declarations: a `new` of one of their classes then resolves
    // to nothing, which the rule allows anyway, and the program binds src/ alone (those
    // declarations and the packages' below were most of what it parsed and bound: 10 s of CPU).
    noLib: true,
    types: [],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  };
  // The files on disk are parsed once for both tests: the probe's program reads most of src/ again.
  const host = parsedOnceHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, language, ...rest) => {
    const probe = probes[name];
    return probe === undefined
      ? getSourceFile(name, language, ...rest)
      : ts.createSourceFile(name, probe, language, true);
  };
  // Nor the npm packages' (fastify's alone is hundreds of files): their classes are allowed, and
  // an import that resolves to nothing leaves `new` unresolved, which the rule allows too.
  host.fileExists = (name) => name in probes || (!name.includes('/node_modules/') && fileExists(name));
  const program = ts.createProgram([...files, ...Object.keys(probes)], options, host);
  const checker = program.getTypeChecker();
  const found: string[] = [];

  for (const file of [...files, ...Object.keys(probes)]) {
    const source = program.getSourceFile(file);
    if (source === undefined) throw new Error(`${file} could not be read`);
    const refuse = (node: ts.Node, what: string): void => {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${path.relative(ROOT, file)}:${line + 1}: ${what}`);
    };
    /** The file that declares the class `new` builds, and its name. */
    const constructed = (node: ts.NewExpression): { name: string; file: string } | undefined => {
      let symbol = checker.getSymbolAtLocation(node.expression);
      if (symbol === undefined) return undefined;
      if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      const declaration = symbol.declarations?.[0];
      if (declaration === undefined) return undefined;
      return { name: symbol.getName(), file: path.resolve(declaration.getSourceFile().fileName) };
    };
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node)) {
        const target = constructed(node);
        if (
          target !== undefined &&
          inside(target.file, SRC) &&
          !inside(target.file, API) &&
          !target.name.endsWith('Error')
        ) {
          refuse(
            node,
            `new ${target.name} (a service of ${path.relative(ROOT, target.file)}): build it in the composition root and hand it to the plugin`,
          );
        }
      } else if (ts.isCallExpression(node)) {
        const callee = node.expression;
        const name = ts.isIdentifier(callee)
          ? callee.text
          : ts.isPropertyAccessExpression(callee)
            ? callee.name.text
            : undefined;
        const owner =
          ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)
            ? callee.expression.text
            : undefined;
        if (name !== undefined && TIMER_CALLS.has(name)) refuse(node, `${name}: a timer`);
        if (owner === 'AbortSignal' && name === 'timeout') refuse(node, 'AbortSignal.timeout: a timer');
      } else if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        if (TIMER_MODULES.has(node.moduleSpecifier.text))
          refuse(node, `import of ${node.moduleSpecifier.text}: timers`);
      } else if (ts.isWhileStatement(node)) {
        refuse(node, 'while loop');
      } else if (ts.isDoStatement(node)) {
        refuse(node, 'do ... while loop');
      } else if (ts.isForStatement(node) && node.condition === undefined) {
        refuse(node, 'for (;;) loop');
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('src/api holds routes, schemas, OpenAPI and answer shaping only', () => {
  // Parses every module of src/api with the TypeScript compiler: bound by CPU (CPU_BOUND_TIMEOUT_MS).
  test('no module of src/api builds a service, starts a timer or loops waiting', {
    timeout: CPU_BOUND_TIMEOUT_MS,
  }, () => {
    const files = apiModules();
    expect(files.length).toBeGreaterThan(50);
    expect(refusals(files)).toEqual([]);
  });

  test('the check catches what it refuses, and lets pass what it allows', () => {
    const probe = path.join(API, 'probe-of-the-rule.ts');
    const source = [
      "import { setTimeout as sleep } from 'node:timers/promises';",
      "import { QuickRegistry } from '../streams/quick/registry.js';",
      "import { SettingsStore } from './system/index.js';",
      "import { HeadsetdError } from '../core/errors.js';",
      "import { StatusAnswers } from './status-answers.js';",
      'export async function probe(): Promise<unknown> {',
      '  const made = [new QuickRegistry(null as never, null as never, undefined), new SettingsStore(null as never)];',
      '  setTimeout(() => undefined, 1);',
      '  globalThis.setInterval(() => undefined, 1);',
      '  AbortSignal.timeout(5);',
      '  await sleep(1);',
      '  while (made.length > 5) made.pop();',
      '  do made.pop(); while (made.length > 5);',
      '  for (;;) break;',
      '  for (let i = 0; i < 2; i++) made.push(i);',
      '  for (const m of made) void m;',
      "  const fine = [new Map(), new Set(), new URL('http://x'), new StatusAnswers(), new HeadsetdError('not_found', 'x')];",
      '  return [made, fine];',
      '}',
    ].join('\n');
    const found = refusals([], { [probe]: source }).map((line) => line.replace(/^[^:]+:/, ''));
    expect(found).toEqual([
      '1: import of node:timers/promises: timers',
      expect.stringMatching(/^7: new QuickRegistry \(a service of src\/streams\/quick\/registry\.ts\)/),
      expect.stringMatching(
        /^7: new SettingsStore \(a service of src\/platform\/store\/settings-store\.ts\)/,
      ),
      '8: setTimeout: a timer',
      '9: setInterval: a timer',
      '10: AbortSignal.timeout: a timer',
      '12: while loop',
      '13: do ... while loop',
      '14: for (;;) loop',
    ]);
  });
});
