/**
 * The `headsetd` command of the build (dist/headsetd.mjs): runs the service's bundle,
 * dist/headsetd.cjs, with V8's code cache made at build time (dist/headsetd.cjs.cache).
 *
 * V8 spent 35–40 ms of each start compiling the 2 MB bundle, and more compiling the functions a
 * start runs (docs/performance-areas.md §Start-up). Node 20's module loaders take no code cache, a
 * `vm.Script` does: the bundle is CommonJS inside the same wrapper Node's loader puts around a
 * CommonJS module (written into the file by the build), compiled here with the cache of a whole start (the build starts the service
 * once with HEADSETD_WRITE_CODE_CACHE set and writes the cache when it exits:
 * scripts/code-cache.mjs). V8 refuses a cache made by another Node or V8 version or with other V8
 * flags; the bundle is then compiled as without one, so the cache only ever saves time.
 * `import()` in the bundle (Swagger UI, the PNG rasteriser, the serial port: loaded on first use)
 * is this module's own, handed to the bundle: Node 20 loses a `vm.Script`'s dynamic-import
 * callback when the script comes from a code cache.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const bundle = fileURLToPath(new URL('./headsetd.cjs', import.meta.url));
const cacheFile = `${bundle}.cache`;

function readCache(): Buffer | undefined {
  try {
    return readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

// The bundle's text is already the wrapper function (scripts/bundle.mjs). Read as bytes, then
// decoded: `readFileSync(file, 'utf8')` grows a native string chunk by chunk before V8 copies it,
// which touched 2,150 pages for the 2.4 MB bundle where this touches 1,190 (20–25 ms of CPU of each
// start on a machine whose page faults cost ~20 µs). The text is the same.
const script = new vm.Script(readFileSync(bundle).toString('utf8'), {
  filename: bundle,
  cachedData: readCache(),
});
if (process.env.HEADSETD_WRITE_CODE_CACHE === '1') {
  // After a whole start and stop: the cache then holds every function they compiled.
  process.once('exit', () => {
    writeFileSync(cacheFile, script.createCachedData());
  });
}
const main = script.runInThisContext() as (...args: unknown[]) => void;
const module = { exports: {} };
// The bundle's `import()` (rewritten by the build): Node 20 loses a script's own dynamic-import
// callback when the script comes from a code cache. This module is beside the bundle, so a
// specifier resolves as from the bundle.
const dynamicImport = (specifier: string): Promise<unknown> => import(specifier);
main(
  module.exports,
  createRequire(bundle),
  module,
  bundle,
  fileURLToPath(new URL('.', import.meta.url)),
  dynamicImport,
);
