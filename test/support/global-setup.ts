/**
 * Vitest global set-up: builds dist/ (TypeScript and the WebAssembly kernels) when a source is newer
 * than the last build, so that no test run, `npx vitest` included, tests a stale build: end-to-end
 * tests spawn `dist/headsetd.mjs`, runtime tests boot stream workers from dist/stream-host.mjs
 * (stream-host.ts), and unit tests load the kernels built beside their .wat sources. Then compiles
 * the tests' scripts that run outside Vitest to JavaScript (test-scripts.ts): the runtime tests'
 * executables, for those workers to import, and the end-to-end tests' child processes. Then starts the run's
 * Python fork server (python-fork-server.ts) and launches the run's shared Chromium (browser.ts,
 * in the background: a run that opens no page never waits for it); both stop at the end of the run.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { startBrowserServer } from './browser.js';
import { PYTHON_SOCKET_VARIABLE, startPythonForkServer } from './python-fork-server.js';
import { compileTestScripts } from './test-scripts.js';

export default async function setup(): Promise<() => Promise<void>> {
  execFileSync(
    process.execPath,
    [path.resolve(import.meta.dirname, '../../scripts/build.mjs'), '--if-stale'],
    {
      stdio: 'inherit',
    },
  );
  await compileTestScripts();
  const browser = startBrowserServer();
  const python = await startPythonForkServer();
  process.env[PYTHON_SOCKET_VARIABLE] = python.socket;
  return async () => {
    await Promise.all([python.stop(), browser?.stop()]);
  };
}
