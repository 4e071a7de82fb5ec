/**
 * The tests' own TypeScript that runs outside Vitest, compiled to JavaScript once per run by the
 * global set-up: the runtime tests' executables, which a stream worker imports (a worker without
 * tsx cannot import TypeScript), and the scripts end-to-end tests start as child processes, which
 * run as plain `node --enable-source-maps script.mjs` ({@link testScript}). A child started through
 * tsx's loader (`node --import tsx child.ts`) loads tsx and esbuild and transforms the child and
 * every module of src/ it imports, at each start. Measured (2026-11-30, `perf stat` of each child
 * alone, twice each, on the shared 2-core machine, with what the child starts): recorder-full-disk's
 * child 1.22–1.48 s of CPU through tsx, 0.64–0.72 s compiled; recorder-crash's up to its first
 * report 1.0–1.2 s, 0.36–0.46 s; host-rule's probe 2.06 s, 1.48–1.57 s; the three others, which start a
 * service, 0.3–0.4 s less on average of their 3–5.6 s. About 4.5 s of CPU less over the nine children a run
 * starts, for 0.17 s more in the global set-up than when it compiled the executables alone.
 *
 * Each script is bundled with what it imports of src/ and test/ (one file to read and compile at
 * a start), packages left to node_modules, with an inline source map so that stack traces name the
 * .ts lines. Modules that find files next to themselves keep doing so: `import.meta.url`,
 * `import.meta.dirname` and `import.meta.filename` are those of each module's TypeScript source, as
 * under tsx (so code that checks for the sources, such as the stream worker's entry, takes the same
 * path it took under tsx).
 *
 * The files are in node_modules/.cache, where the scripts' imports of packages resolve, under a
 * directory of this checkout's own (node_modules may be shared by several checkouts, each with its
 * own sources), and are written aside and renamed: another run may be importing them meanwhile.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The scripts compiled, relative to the repository's root. */
const SOURCES = [
  'test/runtime/fixtures/test-nodes.ts',
  'test/e2e/host-rule-probe.ts',
  'test/e2e/instinct-discovery-child.ts',
  'test/e2e/recorder-crash-child.ts',
  'test/e2e/recorder-full-disk-child.ts',
  'test/e2e/trust-network-child.ts',
  'test/e2e/websocket-fanout-child.ts',
  'test/lsl/netns-probe.ts',
];

// node_modules's real path: Node runs a script from its real path, and the source maps name the
// sources relative to it.
const OUT_DIR = path.join(
  realpathSync(path.join(ROOT, 'node_modules')),
  '.cache',
  'headsetd-tests',
  createHash('sha256').update(ROOT).digest('hex').slice(0, 16),
);

/** The compiled file of a script of {@link SOURCES} (`source`: its path, absolute or from the root). */
export function compiledTestScript(source: string): string {
  const relative = path.relative(ROOT, path.resolve(ROOT, source)).split(path.sep).join('/');
  if (!SOURCES.includes(relative))
    throw new Error(`${relative} is not among the compiled test scripts (test/support/test-scripts.ts)`);
  return path.join(OUT_DIR, relative.replace(/\.ts$/, '.mjs'));
}

/** Node's arguments that run a script of {@link SOURCES}: add the script's own after them. */
export function testScript(source: string): string[] {
  return ['--enable-source-maps', compiledTestScript(source)];
}

/** Compiles every script of {@link SOURCES} (the global set-up, once per run). */
export async function compileTestScripts(): Promise<void> {
  // Imported here, not at the top: the compiled scripts import this module for their paths.
  const { build } = await import('esbuild');
  const onSourceMeta = {
    name: 'source-import-meta',
    setup(b: import('esbuild').PluginBuild) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.')) return undefined;
        return {
          loader: 'ts',
          contents: text
            .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
            .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
            .replaceAll('import.meta.filename', JSON.stringify(args.path)),
        };
      });
    },
  };
  const { outputFiles } = await build({
    entryPoints: SOURCES.map((source) => path.join(ROOT, source)),
    outbase: ROOT,
    outdir: OUT_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    sourcesContent: false,
    write: false,
    logLevel: 'warning',
    plugins: [onSourceMeta],
  });
  for (const file of outputFiles) {
    mkdirSync(path.dirname(file.path), { recursive: true });
    const aside = `${file.path}.${process.pid}`;
    writeFileSync(aside, file.contents);
    renameSync(aside, file.path);
  }
}
