/**
 * Every error the service answers a client with is a class of the catalogue: `HeadsetdError`
 * (src/core/errors.ts) or a subclass of it, so the error handler knows its code and status
 * and never answers a 500 for it. Lint refuses a class that extends one of the language's own
 * errors (`Error`, `TypeError`, ...) outside src/core/errors.ts.
 *
 * src/client/ is left out: the command-line client is a client of the service, and its errors
 * (a wrong command line, a service out of reach, an answer it received) are its own. The few others
 * that stay say why on the line before (`eslint-disable-next-line no-restricted-syntax -- why`):
 * an error of a layer below the catalogue (core/, formats/), which the layer above that reads the
 * file, the body or the child's output turns into a catalogue error or a node's failure; the
 * start-up's, which ends the process before any request.
 */

const BUILT_IN_ERROR = '/^(Aggregate|Eval|Range|Reference|Syntax|Type|URI)?Error$/';

/** The selector of the rule, for eslint.config.js to join with the other restricted syntax. */
export const errorClassSelectors = [
  {
    selector: `:matches(ClassDeclaration, ClassExpression)[superClass.type='Identifier'][superClass.name=${BUILT_IN_ERROR}]`,
    message:
      'An error the service throws is a catalogue error: extend HeadsetdError (src/core/errors.ts) with a code of the catalogue, or throw a HeadsetdError; a class of a layer below the catalogue says why on the line before.',
  },
];

/** The files the rule covers. */
export const errorClassFiles = {
  files: ['src/**/*.ts'],
  ignores: ['src/core/errors.ts', 'src/client/**', 'src/**/*.test.ts'],
};

/** The rule on its own (for the test that lints snippets with it). */
export const errorClassRule = {
  ...errorClassFiles,
  rules: { 'no-restricted-syntax': ['error', ...errorClassSelectors] },
};
