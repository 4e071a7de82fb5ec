import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { errorClassFiles, errorClassSelectors } from './scripts/eslint-errors.mjs';
import { layerRule, webRule } from './scripts/eslint-layers.mjs';

const listenerSelectors = [
  {
    selector:
      "NewExpression[callee.name='Set'] > TSTypeParameterInstantiation > :matches(TSFunctionType, TSUnionType:has(TSFunctionType))",
    message:
      'Listeners are kept in a ListenerSet (src/core/listener-set.ts): add() answers the unsubscribe, emit() calls each one and a listener that throws stops no other.',
  },
  {
    selector:
      "NewExpression TSTypeReference[typeName.name='Set'] > TSTypeParameterInstantiation > :matches(TSFunctionType, TSUnionType:has(TSFunctionType))",
    message:
      'Listeners are kept in a ListenerSet (src/core/listener-set.ts), also inside a Map: Map<string, ListenerSet<T>>.',
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'dist-check/**', 'node_modules/**', 'coverage/**', 'sdk/python/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-extraneous-class': 'off',
      // Fastify handlers and interface implementations are async by contract, awaited or not.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  // One way to keep listeners in the service and its tests: a ListenerSet (src/core/listener-set.ts,
  // docs/architecture.md), never a hand-made Set of functions. (The dashboard, web/, imports no
  // code of the service and keeps its one set of listeners itself.)
  {
    files: ['src/**/*.ts', 'test/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...listenerSelectors] },
  },
  // Errors thrown to clients are classes of the catalogue (docs/architecture.md). One block holds
  // every restricted syntax of these files: a later block's options replace an earlier one's.
  {
    ...errorClassFiles,
    rules: { 'no-restricted-syntax': ['error', ...listenerSelectors, ...errorClassSelectors] },
  },
  // A test's temporary directory is a scratchDir (test/support/scratch.ts), removed when its file
  // ends. Only the run-long ones (the run's Chromium, its Python fork server) are made otherwise.
  {
    files: ['**/*.test.ts', 'test/**/*.ts'],
    ignores: ['test/support/scratch.ts', 'test/support/browser.ts', 'test/support/python-fork-server.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        ...['node:fs', 'node:fs/promises', 'fs', 'fs/promises'].map((name) => ({
          name,
          importNames: ['mkdtemp', 'mkdtempSync'],
          message:
            "A test's temporary directory is scratchDir(prefix) of test/support/scratch.ts: removed when the test file ends, so no run leaves directories behind.",
        })),
      ],
    },
  },
  // Imports point down the layers of scripts/layers.mjs (docs/architecture.md); sibling
  // sub-folders of api/ stay apart; the dashboard imports only types of the service.
  layerRule,
  webRule,
);
