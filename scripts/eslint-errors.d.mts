/** Types of eslint-errors.mjs, for the TypeScript test of the rule. */
import type { Linter } from 'eslint';

export const errorClassRule: Linter.Config;
export const errorClassSelectors: { selector: string; message: string }[];
export const errorClassFiles: { files: string[]; ignores: string[] };
