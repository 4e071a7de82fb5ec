/**
 * Vitest global set-up: builds dist/ (TypeScript and the WebAssembly kernels) when a source is newer
 * than the last build, so that no test run, `npx vitest` included, tests a stale build: end-to-end
 * tests spawn `dist/headsetd.mjs`, runtime tests boot stream workers from dist/stream-host.mjs
 * (stream-host.ts), and unit tests load the kernels built beside their .wat sources. Then compiles
 * the runtime tests' executables to JavaScript, for those workers to import. Then starts the run's
 * Python fork server (python-fork-server.ts) and launches the run's shared Chromium (browser.ts,
 * in the background: a run that opens no page never waits for it); both stop at the end of the run.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { transformSync } from 'esbuild';
import { startBrowserServer } from './browser.js';
import { PYTHON_SOCKET_VARIABLE, startPythonForkServer } from './python-fork-server.js';
import { TEST_NODES_FILE, TEST_NODES_SOURCE } from './stream-host.js';

export default async function setup(): Promise<() => Promise<void>> {
  execFileSync(
    process.execPath,
    [path.resolve(import.meta.dirname, '../../scripts/build.mjs'), '--if-stale'],
    {
      stdio: 'inherit',
    },
  );
  const { code } = transformSync(readFileSync(TEST_NODES_SOURCE, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    sourcefile: TEST_NODES_SOURCE,
    sourcemap: 'inline',
  });
  mkdirSync(path.dirname(TEST_NODES_FILE), { recursive: true });
  // Written aside and renamed: another run's workers may be importing the file meanwhile.
  const aside = `${TEST_NODES_FILE}.${process.pid}`;
  writeFileSync(aside, code);
  renameSync(aside, TEST_NODES_FILE);
  const browser = startBrowserServer();
  const python = await startPythonForkServer();
  process.env[PYTHON_SOCKET_VARIABLE] = python.socket;
  return async () => {
    await Promise.all([python.stop(), browser?.stop()]);
  };
}
