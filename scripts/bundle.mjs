/**
 * Bundles the `headsetd` command (src/cli.ts) into two files, run by dist/headsetd.mjs with V8's
 * code cache (src/service/bundle-loader.ts), for start-up time: loading some 400 modules (TypeBox
 * alone is ~100 ms of module loading) is most of what a cold start costs, and one file is parsed
 * and linked at once (docs/performance.md §Start-up). dist/headsetd.cjs is src/cli.ts with the
 * client commands; dist/headsetd-service.cjs is the service's commands (src/service/command.ts:
 * serve, validate, token, --help, --version), which src/cli.ts imports only for them, so that a
 * client command reads and runs 0.3 MB rather than the service's 2.4 MB.
 *
 * What stays outside the bundle: native addons (better-sqlite3, the PNG rasteriser), whose loaders
 * look for their binaries next to their own files; ws's optional native helpers; and the swagger
 * UI's static files; the XML libraries of the LSL nodes, loaded on first use. A stream's worker runs a
 * third bundle, dist/stream-host.cjs (the worker's entry with the built-ins), through the same
 * loader and with its own code cache (dist/stream-host.mjs), so each worker's isolate loads one
 * file and compiles little of it.
 *
 * Modules that find files next to themselves (`import.meta.url`: the WebAssembly kernel, fonts,
 * package.json, the worker's entry) get the URL their tsc-built twin in dist/ has, computed from
 * the bundle's own location, so dist/ can be moved or installed anywhere.
 */
import { chmodSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { schemaFingerprint } from './schema-fingerprint.mjs';

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src');

const twinUrls = {
  name: 'twin-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(src + path.sep)) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return { contents: text, loader: 'ts' };
      const twin = `./${path.relative(src, args.path).split(path.sep).join('/').replace(/\.ts$/, '.js')}`;
      return {
        contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(twin)}, import.meta.url).href`),
        loader: 'ts',
      };
    });
  },
};

/**
 * The validators of service/prebuilt-schemas.ts (the settings, the stream documents, each built-in's
 * configuration) as ajv's standalone code, generated from tsc's output (dist/, built before this
 * script runs) with the options and formats the service compiles with, in place of
 * src/platform/schemas/prebuilt-validators.ts: neither a start nor a first stream document runs
 * ajv's code generator. Each validator's code is wrapped in a function the service calls on the
 * schema's first use, so a start evaluates only the ones it uses (the settings').
 */
const prebuiltValidators = {
  name: 'prebuilt-validators',
  setup(build) {
    const file = path.join(src, 'platform', 'schemas', 'prebuilt-validators.ts');
    build.onLoad({ filter: /prebuilt-validators\.ts$/ }, async (args) => {
      if (args.path !== file) return undefined;
      const { Ajv } = await import('ajv');
      const { default: addFormats } = await import('ajv-formats');
      const { default: standaloneCode } = await import('ajv/dist/standalone/index.js');
      const { AJV_OPTIONS } = await import(path.join(root, 'dist', 'platform', 'schemas', 'validator.js'));
      const { prebuiltSchemas } = await import(path.join(root, 'dist', 'service', 'prebuilt-schemas.js'));
      const ajv = new Ajv({ ...AJV_OPTIONS, code: { source: true } });
      addFormats(ajv);
      const entries = Object.entries(prebuiltSchemas()).map(([key, schema]) => {
        const code = standaloneCode(ajv, ajv.compile(schema));
        return `${JSON.stringify(key)}: { fingerprint: ${JSON.stringify(schemaFingerprint(key, schema))}, make() {
  const module = { exports: {} };
  (function (module, exports) {
${code}
  })(module, module.exports);
  return module.exports;
} }`;
      });
      return { contents: `export const prebuiltValidators = {\n${entries.join(',\n')}\n};\n`, loader: 'js', resolveDir: root };
    });
  },
};

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  // Whitespace and syntax only, names kept (stack traces still name their functions; the linked
  // source map gives lines): the bundle's text is held by V8 for as long as the service runs, and
  // this halves it (3.1 → 2.0 MB; 4 MiB less resident memory idle).
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  // The XML libraries are loaded on first use (src/lsl/xml-libraries.ts), from node_modules.
  external: [
    'better-sqlite3',
    '@resvg/resvg-js',
    'bufferutil',
    'utf-8-validate',
    '@fastify/swagger-ui',
    '@xmldom/xmldom',
    'xpath',
    // The transpiler of TypeScript nodes (streams/executables/typescript-node.ts): a native binary of its own.
    'esbuild',
    // Serial ports (src/platform/serial/serial-link.ts): the native binding is found next to its package.
    '@serialport/bindings-cpp',
  ],
  // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __headsetdRequire } from 'node:module';\nconst require = __headsetdRequire(import.meta.url);" },
  plugins: [prebuiltValidators, twinUrls],
  // The service's bundle starts its workers on the worker's bundle (streams/executables/stream-host-entry.ts),
  // and the device's thread on the thread's (service/device-thread-entry.ts), each relative to its module's twin.
  define: {
    HEADSETD_WORKER_BUNDLE: JSON.stringify('../../stream-host.mjs'),
    HEADSETD_DEVICE_THREAD_BUNDLE: JSON.stringify('../device-thread.mjs'),
  },
};

/**
 * The `headsetd` command's own import of the service's commands (src/cli.ts imports
 * service/command.ts for serve, validate, token, --help and --version): the other bundle, so the
 * command's bundle holds src/cli.ts and the client only, and a client command reads, compiles and
 * runs nothing of the service.
 */
const serviceCommandsApart = {
  name: 'service-commands-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/service\/command\.js$/ }, (args) =>
      args.importer === path.join(src, 'cli.ts') ? { path: './headsetd-service.cjs', external: true } : undefined,
    );
  },
};

/**
 * One CommonJS bundle run by the `headsetd` command (dist/headsetd.mjs, src/service/bundle-loader.ts)
 * with V8's code cache, which Node 20 takes for a `vm.Script` and not for an ES module.
 */
async function loaderBundle(entry, file, plugins) {
  rmSync(`${file}.cache`, { force: true });
  await esbuild.build({
    ...common,
    format: 'cjs',
    // The loader's wrapper gives `require`, `__filename` and `__dirname`; this file's URL stands for
    // import.meta.url (esbuild has no import.meta in CommonJS). Strict as the ES module was: the
    // directive leads, before the banner's statement.
    banner: { js: '"use strict";const __headsetdUrl = require("node:url").pathToFileURL(__filename).href;' },
    define: { ...common.define, 'import.meta.url': '__headsetdUrl' },
    plugins,
    entryPoints: [entry],
    outfile: file,
  });
  // The file is the function Node's loader wraps a CommonJS module in, as text: the `headsetd` command
  // compiles it with its code cache as it is (a copy with a wrapper added cost 4 MiB of resident
  // memory). The wrapper goes on the first line in place of the entry's `#!` line (which stays on the
  // command), so the source map's lines still match.
  // `import()` goes through the command's own `import` (the wrapper's `__headsetdImport`): Node 20
  // loses a `vm.Script`'s dynamic-import callback when the script comes from a code cache
  // (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING). The command sits beside this file, so specifiers
  // resolve as from here. Only string literals and plain names (the worker's modules of extra
  // executables, resolve-node.ts) are rewritten (the worker's bootstrap text in a template is not
  // code of this file); any other `import(` stops the build.
  const text = (await readFile(file, 'utf8'))
    .replace(/^#![^\n]*/, '')
    .replace(/(?<![\w$.])import\(("[^"\n]+"|[A-Za-z_$][\w$]*)\)/g, '__headsetdImport($1)');
  const unhandled = /(?<![\w$.`])import\((?!\$\{)/.exec(text);
  if (unhandled !== null) {
    throw new Error(
      `a dynamic import() the bundle ${path.basename(file)} cannot run: ${text.slice(unhandled.index - 60, unhandled.index + 60)}`,
    );
  }
  await writeFile(
    file,
    `(function (exports, require, module, __filename, __dirname, __headsetdImport) {${text}\n})`,
  );
}

// The command: src/cli.ts and the client commands.
await loaderBundle(path.join(src, 'cli.ts'), path.join(root, 'dist', 'headsetd.cjs'), [serviceCommandsApart, twinUrls]);
// The service's commands: serve (the whole service), validate, token, --help, --version.
await loaderBundle(path.join(src, 'service', 'command.ts'), path.join(root, 'dist', 'headsetd-service.cjs'), [
  prebuiltValidators,
  twinUrls,
]);
// A stream's worker: its entry (streams/executables/stream-host.ts) with the built-ins.
await loaderBundle(path.join(src, 'streams', 'executables', 'stream-host.ts'), path.join(root, 'dist', 'stream-host.cjs'), [
  twinUrls,
]);

// The device's thread: its entry (service/device-thread.ts): the device's production (simulated and
// replayed EEG, live amplifiers' drivers) and the host of the streams that read the device, with the built-ins.
await loaderBundle(path.join(src, 'service', 'device-thread.ts'), path.join(root, 'dist', 'device-thread.cjs'), [
  twinUrls,
]);

/**
 * The loader (src/service/bundle-loader.ts) as an ES module that runs `bundle` with its code cache:
 * the `headsetd` command (dist/headsetd.mjs, the command's bundle), a stream worker's entry
 * (dist/stream-host.mjs, the worker's bundle, which each worker's isolate compiles anew) and the
 * device's thread's (dist/device-thread.mjs).
 */
async function loaderModule(bundle, file, banner) {
  await esbuild.build({
    ...common,
    plugins: [],
    banner: { js: banner },
    sourcemap: false,
    define: { ...common.define, HEADSETD_LOADER_RUNS: JSON.stringify(bundle) },
    entryPoints: [path.join(src, 'service', 'bundle-loader.ts')],
    outfile: file,
  });
}
await loaderModule('./headsetd.cjs', path.join(root, 'dist', 'headsetd.mjs'), '#!/usr/bin/env node');
chmodSync(path.join(root, 'dist', 'headsetd.mjs'), 0o755);
await loaderModule('./stream-host.cjs', path.join(root, 'dist', 'stream-host.mjs'), '');
await loaderModule('./device-thread.cjs', path.join(root, 'dist', 'device-thread.mjs'), '');
