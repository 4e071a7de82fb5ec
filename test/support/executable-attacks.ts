/**
 * Command lines that once passed the executables allow-list by attaching code to an interpreter
 * option, each of which writes a file named `pwned` in its working directory when run. A
 * `moving_average.py` and a `moving-average.mjs` in the executables directory and an `outside.cjs`
 * in the data directory (its parent) make them resolvable as they were.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './service.js';

export const BYPASS_FORMS = [
  `python3 "-cimport os; os.system('id > pwned')" moving_average.py`,
  `node "--eval=require('fs').writeFileSync('pwned', '')" moving-average.mjs`,
  'node --require=../outside.cjs moving-average.mjs',
  `perl "-eopen(F,'>pwned')" moving_average.py`,
] as const;

/** Puts the example nodes into `<dataDir>/executables` and the required file beside it. */
export function populateAttackFiles(dataDir: string): string {
  const dir = path.join(dataDir, 'executables');
  mkdirSync(dir, { recursive: true });
  for (const name of ['moving_average.py', 'moving-average.mjs']) {
    copyFileSync(path.join(ROOT, 'examples', 'nodes', name), path.join(dir, name));
  }
  writeFileSync(path.join(dataDir, 'outside.cjs'), "require('fs').writeFileSync('pwned', '')\n");
  return dir;
}
