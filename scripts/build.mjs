/**
 * Builds dist/ from src/: TypeScript (tsc -p tsconfig.build.json), then the WebAssembly kernels
 * (build-wasm.mjs), then the `headsetd` command bundled (dist/headsetd.mjs, which runs
 * dist/headsetd.cjs and, for the service, dist/headsetd-service.cjs: bundle.mjs), then the
 * dashboard (web/) into dist/web/ (build-web.mjs), then V8's code caches of the bundles (code-cache.mjs). With `--if-stale` it builds only when a source, a tsconfig or package.json is
 * newer than the last successful build (dist/.build-stamp), so `npm start` on an unchanged
 * checkout starts at once instead of recompiling the project. A build starts from an empty dist/,
 * so no output of a deleted source survives.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const root = path.resolve(import.meta.dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');

/** The newest modification time of the build's inputs; Infinity when a kernel's .wasm is missing. */
function newestInputMs() {
  let newest = 0;
  const visit = (p) => {
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p)) visit(path.join(p, name));
    } else if (!p.endsWith('.wasm')) {
      newest = Math.max(newest, st.mtimeMs);
      if (p.endsWith('.wat') && !existsSync(p.replace(/\.wat$/, '.wasm'))) newest = Infinity;
    }
  };
  visit(path.join(root, 'src'));
  visit(path.join(root, 'scripts'));
  visit(path.join(root, 'web'));
  for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json']) visit(path.join(root, file));
  return newest;
}

function isStale() {
  return !existsSync(stamp) || statSync(stamp).mtimeMs < newestInputMs();
}

if (process.argv.includes('--if-stale') && !isStale()) process.exit(0);

rmSync(path.join(root, 'dist'), { recursive: true, force: true });
const run = (file, args) => execFileSync(file, args, { cwd: root, stdio: 'inherit' });
run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json']);
run(process.execPath, [path.join(root, 'scripts', 'build-wasm.mjs')]);
// The command as two files, the client's and the service's (start-up time); dist/cli.js stays for the library's users.
run(process.execPath, [path.join(root, 'scripts', 'bundle.mjs')]);
// The dashboard served at / (docs/dashboard.md): web/ bundled into dist/web/.
run(process.execPath, [path.join(root, 'scripts', 'build-web.mjs')]);
// V8's code caches of the bundles, made by one start of the service and one client command (code-cache.mjs).
run(process.execPath, [path.join(root, 'scripts', 'code-cache.mjs')]);
writeFileSync(stamp, `${new Date().toISOString()}\n`);
