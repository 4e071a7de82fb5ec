/**
 * docs/api.md §Error codes lists every code the service can answer with, at its status, and no
 * other. The codes are the catalogue's (src/core/errors.ts, statuses in src/platform/http/statuses.ts);
 * the TypeScript of src/ is scanned besides, so that a code written by hand into an envelope (a
 * job's `error`, a worker's reply, an issue of a document) that the catalogue does not hold fails
 * here too. src/client/ is left out: the command-line client describes answers it received, and
 * its `unexpected_answer` (an answer without the envelope, from a proxy say) is never the service's.
 */
import { CPU_BOUND_TIMEOUT_MS } from '../support/wait.js';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { ERROR_CATALOG } from '../../src/core/errors.js';
import { HTTP_STATUS } from '../../src/platform/http/statuses.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');
const LEFT_OUT = [path.join(SRC, 'client')];

function modules(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (LEFT_OUT.includes(file)) return [];
    if (entry.isDirectory()) return modules(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [file] : [];
  });
}

/** `a_code` as a code is written; other strings (`EADDRINUSE`, messages) are not codes. */
const CODE_LIKE = /^[a-z]+(_[a-z]+)*$/;

/** The codes one module gives an error: `new HeadsetdError('x', ...)`, `super('x', ...)` of a HeadsetdError subclass, `code: 'x'`, `code: ErrorCode = 'x'`. */
function codesIn(file: string): { code: string; line: number }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: { code: string; line: number }[] = [];
  const add = (node: ts.Node | undefined) => {
    if (node === undefined || !ts.isStringLiteralLike(node) || !CODE_LIKE.test(node.text)) return;
    found.push({ code: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
  };
  const extendsCatalogue = (node: ts.Node): boolean => {
    const owner = ts.findAncestor(node, ts.isClassLike);
    return (owner?.heritageClauses ?? []).some((clause) =>
      clause.types.some((type) => type.expression.getText() === 'HeadsetdError'),
    );
  };
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && node.expression.getText() === 'HeadsetdError') add(node.arguments?.[0]);
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.SuperKeyword &&
      extendsCatalogue(node)
    ) {
      add(node.arguments[0]);
    }
    if (ts.isPropertyAssignment(node) && node.name.getText() === 'code') add(node.initializer);
    if (ts.isParameter(node) && node.type?.getText() === 'ErrorCode') add(node.initializer);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The rows of the table under `### Error codes`: each row's codes (one or several) and its status. */
function documentedCodes(): Map<string, number> {
  const text = readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');
  const start = text.indexOf('\n### Error codes\n');
  expect(start, 'docs/api.md has a section "### Error codes"').toBeGreaterThan(0);
  const section = text.slice(start + 1).split(/\n#{1,3} /)[0] ?? '';
  const codes = new Map<string, number>();
  for (const line of section.split('\n')) {
    const cells = /^\|([^|]*)\|\s*(\d{3})\s*\|/.exec(line);
    if (cells === null) continue;
    for (const match of (cells[1] ?? '').matchAll(/`([^`]+)`/g)) {
      const code = match[1] ?? '';
      expect(codes.has(code), `${code} is listed twice`).toBe(false);
      codes.set(code, Number(cells[2]));
    }
  }
  return codes;
}

describe('docs/api.md §Error codes', () => {
  const documented = documentedCodes();

  test('lists every code of the catalogue at its HTTP status', () => {
    const missing = Object.keys(ERROR_CATALOG).filter((code) => !documented.has(code));
    expect(missing, 'codes of the catalogue that docs/api.md does not list').toEqual([]);
    for (const [code, status] of Object.entries(HTTP_STATUS)) {
      expect(documented.get(code), `the status docs/api.md gives ${code}`).toBe(status);
    }
  });

  test('lists no code the catalogue does not hold', () => {
    const unknown = [...documented.keys()].filter((code) => !(code in ERROR_CATALOG));
    expect(unknown, 'codes docs/api.md lists that the service never answers').toEqual([]);
  });

  // Parses every module of src/ with the TypeScript compiler: bound by CPU (CPU_BOUND_TIMEOUT_MS).
  test('every code the source gives an error is in the catalogue (so in the table)', {
    timeout: CPU_BOUND_TIMEOUT_MS,
  }, () => {
    const strays: string[] = [];
    let seen = 0;
    for (const file of modules()) {
      for (const { code, line } of codesIn(file)) {
        seen++;
        if (!(code in ERROR_CATALOG)) strays.push(`${path.relative(ROOT, file)}:${line}: '${code}'`);
      }
    }
    // The scan finds the codes as they are written today (hundreds); finding none would mean it broke.
    expect(seen).toBeGreaterThan(100);
    expect(strays, 'error codes written in src/ that the catalogue does not hold').toEqual([]);
  });
});
