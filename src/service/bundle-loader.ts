/**
 * The `headsetd` command of the build (dist/headsetd.mjs): runs the command's bundle,
 * dist/headsetd.cjs (src/cli.ts and the client commands), and, when the command is not a client
 * command, the service's, dist/headsetd-service.cjs (serve, validate, token), each with V8's code
 * cache made at build time (`<bundle>.cache`). A client command thus reads and runs one small
 * bundle, not the service's 2 MB (scripts/bundle.mjs).
 *
 * V8 spent 35–40 ms of each start compiling the 2 MB bundle, and more compiling the functions a
 * start runs (docs/performance-areas.md §Start-up). Node 20's module loaders take no code cache, a
 * `vm.Script` does: each bundle is CommonJS inside the same wrapper Node's loader puts around a
 * CommonJS module (written into the file by the build), compiled here with the cache the build
 * made by running it (HEADSETD_WRITE_CODE_CACHE names the bundles whose cache a run writes when it
 * exits: scripts/code-cache.mjs). V8 refuses a cache made by another Node or V8 version or with
 * other V8 flags; the bundle is then compiled as without one, so the cache only ever saves time.
 * `import()` in a bundle (the service's bundle from the command's; Swagger UI, the PNG rasteriser,
 * the serial port: loaded on first use) is this module's own, handed to the bundle: Node 20 loses
 * a `vm.Script`'s dynamic-import callback when the script comes from a code cache.
 *
 * The build makes this module twice (scripts/bundle.mjs): as the command, and as a stream worker's
 * entry (dist/stream-host.mjs), which runs the worker's bundle, dist/stream-host.cjs, the same way:
 * each worker is a new isolate that compiled the 630 KB bundle anew, 180–450 ms of a service's
 * first stream start with Node's own boot of the isolate (docs/performance.md §Start-up and a
 * service's first stream). A worker writes its bundle's cache once it has booted (the bundle
 * evaluated, the built-ins warmed up), since a worker the service ends is terminated and runs no
 * `exit` handler.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { isMainThread } from 'node:worker_threads';
import { holdTickShape } from './tick-shape.js';

/** Set by the build: the bundle this module runs, './headsetd.cjs', './stream-host.cjs' or './device-thread.cjs'. */
declare const HEADSETD_LOADER_RUNS: string | undefined;
const ENTRY_BUNDLE = typeof HEADSETD_LOADER_RUNS === 'string' ? HEADSETD_LOADER_RUNS : './headsetd.cjs';

/** The bundles, beside this module, by the specifier the command's bundle imports the other by. */
const BUNDLES = new Set([
  './headsetd.cjs',
  './headsetd-service.cjs',
  './stream-host.cjs',
  './device-thread.cjs',
]);
const writeCacheOf = new Set(
  (process.env.HEADSETD_WRITE_CODE_CACHE ?? '')
    .split(',')
    .filter((name) => name !== '')
    .map((name) => `./${name}`),
);
const directory = fileURLToPath(new URL('.', import.meta.url));

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Compiles and runs one bundle; its exports. */
function runBundle(specifier: string): Record<string, unknown> {
  const bundle = fileURLToPath(new URL(specifier, import.meta.url));
  const cacheFile = `${bundle}.cache`;
  // The bundle's text is already the wrapper function (scripts/bundle.mjs). Read as bytes, then
  // decoded: `readFileSync(file, 'utf8')` grows a native string chunk by chunk before V8 copies it,
  // which touched 2,150 pages for the 2.4 MB service bundle where this touches 1,190 (20–25 ms of
  // CPU of each start on a machine whose page faults cost ~20 µs). The text is the same.
  const script = new vm.Script(readFileSync(bundle).toString('utf8'), {
    filename: bundle,
    cachedData: readCache(cacheFile),
  });
  if (writeCacheOf.has(specifier)) {
    const write = (): void => {
      writeFileSync(cacheFile, script.createCachedData());
    };
    // After the whole run: the cache then holds every function it compiled. A worker thread's, after
    // its boot (a terminated worker runs no exit handler; a stream worker's warm-up of the built-ins
    // is promise jobs, run before an immediate).
    if (!isMainThread) setImmediate(write);
    else process.once('exit', write);
  }
  const main = script.runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} as Record<string, unknown> };
  main(module.exports, createRequire(bundle), module, bundle, directory, dynamicImport);
  return module.exports;
}

// The bundles' `import()` (rewritten by the build): Node 20 loses a script's own dynamic-import
// callback when the script comes from a code cache. This module is beside the bundles, so a
// specifier resolves as from a bundle.
function dynamicImport(specifier: string): Promise<unknown> {
  if (BUNDLES.has(specifier))
    return new Promise((resolve) => {
      resolve(runBundle(specifier));
    });
  return import(specifier);
}

// Before the bundle's start makes and frees its first garbage (tick-shape.ts).
holdTickShape();
runBundle(ENTRY_BUNDLE);
