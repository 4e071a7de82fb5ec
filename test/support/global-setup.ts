/**
 * Vitest global set-up: builds the WebAssembly kernels from their .wat sources, so that a test run
 * from the sources (`npx vitest`) never loads a missing or stale kernel.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export default function setup(): void {
  execFileSync(process.execPath, [path.resolve(import.meta.dirname, '../../scripts/build-wasm.mjs')], {
    stdio: 'inherit',
  });
}
