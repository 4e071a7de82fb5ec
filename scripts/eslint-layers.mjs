/**
 * The ESLint rule `layers/imports`: every relative import (static, dynamic, re-export, type-only)
 * of a module in src/ must point at its own unit or a lower layer of scripts/layers.mjs.
 *
 * Written here rather than taken from eslint-plugin-boundaries or no-restricted-imports: the
 * layers are one table of folders, and checking a resolved path against it takes a few lines;
 * `no-restricted-imports` matches specifier text, which cannot tell `../config.js` (the composer)
 * from a sibling's file of the same name.
 */
import { builtinModules } from 'node:module';
import { dirname, relative, resolve, sep } from 'node:path';
import { refusal, siblingRefusal, unitOf, webRefusal } from './layers.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const SRC = resolve(ROOT, 'src');

/** The path of `file` relative to `base`, '/'-separated. */
function below(base, file) {
  return relative(base, file).split(sep).join('/');
}

/** Whether an import, re-export or `import()` type brings in types only (erased by the compiler). */
function typeOnly(node) {
  if (node.type === 'TSImportType') return true;
  if (node.importKind === 'type' || node.exportKind === 'type') return true;
  const specifiers = node.specifiers ?? [];
  return (
    node.type === 'ImportDeclaration' &&
    specifiers.length > 0 &&
    specifiers.every((specifier) => specifier.importKind === 'type')
  );
}

/** The unit of scripts/layers.mjs a file belongs to ('' for an entry point), undefined outside src/. */
function folderOf(file) {
  const rel = relative(SRC, file);
  if (rel.startsWith('..') || rel === '') return undefined;
  return unitOf(rel.split(sep).join('/'));
}

const importsRule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports follow the layers of scripts/layers.mjs' },
    schema: [],
    messages: { refused: '{{reason}}' },
  },
  create(context) {
    const file = context.filename;
    const from = folderOf(file);
    if (from === undefined) return {};
    function check(node, source) {
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      const specifier = source.value;
      if (!specifier.startsWith('.')) return;
      const to = folderOf(resolve(dirname(file), specifier));
      if (to === undefined) return;
      const target = resolve(dirname(file), specifier);
      const reason = refusal(from, to) ?? siblingRefusal(below(SRC, file), below(SRC, target));
      if (reason !== undefined) context.report({ node: source, messageId: 'refused', data: { reason } });
    }
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      // typescript-eslint 8.x names the specifier `source`; older versions had `argument.literal`.
      TSImportType: (node) => check(node, node.source ?? node.argument?.literal),
    };
  },
};

const webImportsRule = {
  meta: {
    type: 'problem',
    docs: { description: 'the dashboard imports its own files, packages, and only types of the service' },
    schema: [],
    messages: { refused: '{{reason}}' },
  },
  create(context) {
    const file = context.filename;
    function check(node, source) {
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      const specifier = source.value;
      let to;
      if (specifier.startsWith('.')) to = below(ROOT, resolve(dirname(file), specifier));
      else if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]))
        to = specifier.startsWith('node:') ? specifier : `node:${specifier}`;
      else return; // an npm package
      const reason = webRefusal(to, typeOnly(node));
      if (reason !== undefined) context.report({ node: source, messageId: 'refused', data: { reason } });
    }
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportType: (node) => check(node, node.source ?? node.argument?.literal),
    };
  },
};

const plugin = { rules: { imports: importsRule, web: webImportsRule } };

/** The config blocks eslint.config.js includes. */
export const layerRule = {
  files: ['src/**/*.ts'],
  // Tests beside the code may reach across layers to put parts together (the SDK's test runs the
  // runtime's process adapter); nothing of the service imports them.
  ignores: ['src/**/*.test.ts'],
  plugins: { layers: plugin },
  rules: { 'layers/imports': 'error' },
};

/** The dashboard: web/ (its tests aside) reaches the service only through types. */
export const webRule = {
  files: ['web/**/*.ts', 'web/**/*.tsx'],
  ignores: ['web/**/*.test.ts'],
  plugins: { layers: plugin },
  rules: { 'layers/web': 'error' },
};
