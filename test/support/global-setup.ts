/**
 * Vitest global set-up: builds dist/ (TypeScript and the WebAssembly kernels) when a source is newer
 * than the last build, so that no test run, `npx vitest` included, tests a stale build: end-to-end
 * tests spawn `dist/headsetd.mjs`, and unit tests load the kernels built beside their .wat sources.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export default function setup(): void {
  execFileSync(
    process.execPath,
    [path.resolve(import.meta.dirname, '../../scripts/build.mjs'), '--if-stale'],
    {
      stdio: 'inherit',
    },
  );
}
