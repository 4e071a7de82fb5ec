/** Types of eslint-layers.mjs, for the TypeScript test of the rule. */
import type { Linter } from 'eslint';
export const layerRule: Linter.Config;
export const webRule: Linter.Config;
