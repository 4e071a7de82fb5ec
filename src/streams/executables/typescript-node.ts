/**
 * One-file TypeScript nodes (docs/node-protocol.md §8): Node 20 cannot run a `.ts` file, so an
 * allowed script ending in `.ts` or `.mts` is transpiled by the service, once per content, into
 * `<data dir>/cache/typescript-nodes/<sha-256>.mjs`, and node runs that file instead.
 *
 * The transpiler is esbuild, given the script's text and nothing else: types are erased, no file
 * is read besides the script (already checked against the allow-list by the caller), no import is
 * followed and no code of the script, a plugin or a config file runs. Imports stay imports, with
 * two rewrites so that the cached file, which lives elsewhere than the script, loads what the
 * script meant: `headsetd/sdk` becomes this service's own SDK (the one HEADSETD_SDK names), and a
 * relative import of a JavaScript file becomes the absolute URL of that file beside the script.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SDK_LOCATIONS } from '../runtime/external/child-env.js';

/** True for a script this module transpiles before node runs it. */
export function isTypeScriptFile(file: string): boolean {
  return /\.m?ts$/.test(file) && !file.endsWith('.d.ts');
}

/** Where transpiled nodes are kept, inside the data directory. */
export function typeScriptCacheDir(dataDir: string): string {
  return path.join(dataDir, 'cache', 'typescript-nodes');
}

/** Relative imports of these run as they are; TypeScript ones would need the same transpiling. */
const JAVASCRIPT_IMPORT = /\.(mjs|cjs|js|json)$/;

/**
 * The expression redefined to the script's URL, spelt in parts: the service's bundler rewrites that
 * expression wherever it appears literally in a source (scripts/bundle.mjs).
 */
const IMPORT_META_URL = ['import', 'meta', 'url'].join('.');

type Esbuild = typeof import('esbuild');

async function loadEsbuild(): Promise<Esbuild> {
  try {
    return await import('esbuild');
  } catch (error) {
    throw new Error(
      `TypeScript nodes need the esbuild package, which this installation of headsetd lacks (${(error as Error).message}); reinstall headsetd with its dependencies, or run the node as JavaScript`,
    );
  }
}

/**
 * Transpiles `script` (an allowed .ts file, by its real path) unless its text was transpiled
 * before; returns the path of the .mjs for node to run. Errors name the script, line and column.
 */
export async function transpileTypeScriptNode(script: string, dataDir: string): Promise<string> {
  const source = readFileSync(script, 'utf8');
  const esbuild = await loadEsbuild();
  const key = createHash('sha256')
    .update(`${esbuild.version}\0${SDK_LOCATIONS.javascript}\0${script}\0`)
    .update(source)
    .digest('hex');
  const dir = typeScriptCacheDir(dataDir);
  const output = path.join(dir, `${key}.mjs`);
  try {
    if (statSync(output).isFile()) return output;
  } catch {
    // Not transpiled yet.
  }
  const scriptDir = path.dirname(script);
  let result: Awaited<ReturnType<Esbuild['build']>>;
  try {
    result = await esbuild.build({
      stdin: { contents: source, loader: 'ts', sourcefile: script, resolveDir: scriptDir },
      // "Bundling" only so that every import passes the resolver below, which leaves it external:
      // nothing is inlined and no other file is read.
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      // No tsconfig.json of the script's directory is looked for: its options could not change
      // what type erasure does, and the transpile reads the script alone.
      tsconfigRaw: {},
      // Stack traces name the script's own lines (node runs it with --enable-source-maps).
      sourcemap: 'inline',
      sourcesContent: false,
      absWorkingDir: scriptDir,
      sourceRoot: pathToFileURL(`${scriptDir}${path.sep}`).href,
      // The script's own location, not the cache's, for code that finds files beside itself.
      define: { [IMPORT_META_URL]: JSON.stringify(pathToFileURL(script).href) },
      logLevel: 'silent',
      plugins: [
        {
          name: 'imports-stay-imports',
          setup(build) {
            build.onResolve({ filter: /.*/ }, (args) => {
              if (args.kind === 'entry-point') return undefined;
              if (args.path === 'headsetd/sdk') return { path: SDK_LOCATIONS.javascript, external: true };
              if (args.path.startsWith('./') || args.path.startsWith('../')) {
                if (!JAVASCRIPT_IMPORT.test(args.path)) {
                  return {
                    errors: [
                      {
                        text: `'${args.path}' cannot be imported: a TypeScript node is one file (it may import node: modules, 'headsetd/sdk' and JavaScript files beside it)`,
                      },
                    ],
                  };
                }
                return { path: pathToFileURL(path.resolve(scriptDir, args.path)).href, external: true };
              }
              return { path: args.path, external: true };
            });
          },
        },
      ],
    });
  } catch (error) {
    const failure = error as {
      errors?: { text: string; location?: { line: number; column: number } | null }[];
    };
    const first = failure.errors?.[0];
    if (first === undefined) throw error;
    const where = first.location == null ? '' : `:${first.location.line}:${first.location.column + 1}`;
    throw new Error(`${script}${where} could not be transpiled: ${first.text}`);
  }
  const code = result.outputFiles?.[0]?.text ?? '';
  mkdirSync(dir, { recursive: true });
  // Written beside and renamed: a node starting at the same time never runs half a file.
  const partial = `${output}.${randomUUID()}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, output);
  return output;
}
