/**
 * `src/device/` holds the Headset and its implementations (simulated, replay, live amplifiers),
 * their clock and physics, and nothing else: its modules import only the vocabulary and libraries
 * below it (core/, dsp/, formats/, and lsl/: the Lab Streaming Layer protocol and the one LSL
 * reader, a layer below device/ in scripts/layers.mjs, that the LSL device reads with), the serial
 * port the Cyton reads (platform/serial/, alone of platform/), device/ itself and Node.js built-ins. The device services kept in the domain's folder (device/settings/,
 * device/sources/) are units of a higher layer and are not held to this. Types count too: a
 * metric, a job, a store or a route that the device needed to name would pull the service into it.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { unitOf } from '../../scripts/layers.mjs';
import { sourceFiles } from './import-graph.js';

const root = new URL('../../', import.meta.url).pathname;
const src = resolve(root, 'src');
/** lsl/: the LSL device (device/lsl/) reads its stream with the one LSL reader (lsl/reader.ts). */
const ALLOWED = ['device', 'core', 'dsp', 'formats', 'lsl'];
/** platform/serial/: the Cyton's dongle is a serial port (device/cyton/link.ts opens it). */
const ALLOWED_UNITS = ['platform/serial'];

/** Every module specifier a file names: imports, re-exports, `import()` and `import('...')` types. */
function specifiers(source: string, fileName = 'x.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Why `file` (absolute) may not import `specifier`, or undefined when it may. */
function deviceRefusal(file: string, specifier: string): string | undefined {
  if (specifier.startsWith('node:')) return undefined;
  if (!specifier.startsWith('.')) return `the package ${specifier}`;
  const target = relative(src, resolve(dirname(file), specifier));
  const folder = target.split('/')[0] ?? '';
  if (target.startsWith('..') || !target.includes('/')) return `${specifier} (outside src/'s folders)`;
  if (ALLOWED_UNITS.includes(unitOf(target) ?? '')) return undefined;
  return ALLOWED.includes(folder) ? undefined : `src/${target} (src/${folder}/)`;
}

describe('device/ imports', () => {
  test('only core/, dsp/, formats/, lsl/, device/ itself and Node.js built-ins', () => {
    const refused: string[] = [];
    const files = sourceFiles(resolve(src, 'device')).filter(
      (file) => unitOf(relative(src, file)) === 'device',
    );
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) {
      for (const specifier of specifiers(readFileSync(file, 'utf8'), file)) {
        const reason = deviceRefusal(file, specifier);
        if (reason !== undefined) refused.push(`${relative(root, file)} imports ${reason}`);
      }
    }
    expect(refused).toEqual([]);
  });

  test.each([
    [
      "import type { Db } from '../platform/store/database.js';",
      /src\/platform\/store\/database\.js \(src\/platform\/\)/,
    ],
    ["export { x } from '../platform/metrics/health.js';", /src\/platform\//],
    ["type T = import('../api/app.js').App;", /src\/api\//],
    ["const m = await import('../platform/jobs/jobs.js');", /src\/platform\//],
    ["import { x } from '../service/server.js';", /src\/service\//],
    ["import { x } from '../cli.js';", /outside src/],
    ["import Database from 'better-sqlite3';", /the package better-sqlite3/],
    ["import { xmlParser } from '@xmldom/xmldom';", /the package @xmldom\/xmldom/],
    ["import { x } from '../streams/executables/lsl-inlet.js';", /src\/streams\//],
  ])('refuses %s', (source, reason) => {
    const file = resolve(src, 'device/headset.ts');
    const reasons = specifiers(source).map((specifier) => deviceRefusal(file, specifier));
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(reason);
  });

  test.each([
    "import { x } from '../core/frame.js';",
    "import { x } from './simulated/index.js';",
    "import type { X } from '../core/errors.js';",
    "import { readFileSync } from 'node:fs';",
    "import { openFeed } from '../lsl/inlet.js';",
  ])('allows %s', (source) => {
    const file = resolve(src, 'device/headset.ts');
    expect(specifiers(source).map((specifier) => deviceRefusal(file, specifier))).toEqual([undefined]);
  });
});
