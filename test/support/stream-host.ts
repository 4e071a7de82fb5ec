/**
 * What the tests' stream workers run: the built worker entry (dist/stream-host.mjs, which runs the
 * worker's bundle with its code cache and which the global set-up rebuilds whenever a source is
 * newer), not the TypeScript entry. A worker booted from the
 * TypeScript sources loads every module through tsx's loader: measured 2.3–2.7 s of CPU per worker
 * against 0.19–0.25 s for the bundle (2026-11-29, a start and close of a one-stream runtime), and the
 * suite boots a worker in most runtime tests. The bundle is also what the service runs.
 *
 * The runtime tests' own executables (test/runtime/fixtures/test-nodes.ts) are compiled by the
 * global set-up into {@link TEST_NODES_MODULE} (test-scripts.ts), for a worker without tsx cannot
 * import TypeScript.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledTestScript } from './test-scripts.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The stream worker's entry, as the service runs it. */
export const STREAM_HOST: URL = pathToFileURL(path.join(ROOT, 'dist', 'stream-host.mjs'));

/** The runtime tests' executables (`extraExecutableModules`), compiled to JavaScript. */
export const TEST_NODES_MODULE: string = pathToFileURL(
  compiledTestScript('test/runtime/fixtures/test-nodes.ts'),
).href;

/** The device's thread's entry, as the service runs it (service/device-thread-entry.ts). */
export const DEVICE_THREAD: URL = pathToFileURL(path.join(ROOT, 'dist', 'device-thread.mjs'));
