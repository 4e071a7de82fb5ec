/**
 * The ESLint rule `layers/imports`: every relative import (static, dynamic, re-export, type-only)
 * of a module in src/ must point at its own folder or a lower layer of scripts/layers.mjs.
 *
 * Written here rather than taken from eslint-plugin-boundaries or no-restricted-imports: the
 * layers are one table of folders, and checking a resolved path against it takes a few lines;
 * `no-restricted-imports` matches specifier text, which cannot tell `../config.js` (the composer)
 * from a sibling's file of the same name.
 */
import { dirname, relative, resolve, sep } from 'node:path';
import { refusal } from './layers.mjs';

const SRC = resolve(import.meta.dirname, '..', 'src');

/** '' for a file directly in src/, the folder's name for one below it, undefined outside src/. */
function folderOf(file) {
  const rel = relative(SRC, file);
  if (rel.startsWith('..') || rel === '') return undefined;
  const parts = rel.split(sep);
  return parts.length === 1 ? '' : parts[0];
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
      const reason = refusal(from, to);
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

/** The config block eslint.config.js includes. */
export const layerRule = {
  files: ['src/**/*.ts'],
  // Tests beside the code may reach across layers to put parts together (the SDK's test runs the
  // runtime's process adapter); nothing of the service imports them.
  ignores: ['src/**/*.test.ts'],
  plugins: { layers: { rules: { imports: importsRule } } },
  rules: { 'layers/imports': 'error' },
};
