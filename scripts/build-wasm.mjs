/**
 * Builds the project's WebAssembly kernels from their text sources (src/**\/*.wat) with wabt, the
 * WebAssembly Binary Toolkit: each `X.wat` becomes `X.wasm` beside it in src/ (ignored by git, so
 * `tsx` and vitest find it) and in dist/ (what `npm start` and the package run).
 * Run by `npm run build`; takes well under a second.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import wabtInit from 'wabt';

const root = path.resolve(import.meta.dirname, '..');
const wabt = await wabtInit();

function* watFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* watFiles(full);
    else if (entry.name.endsWith('.wat')) yield full;
  }
}

for (const file of watFiles(path.join(root, 'src'))) {
  const module = wabt.parseWat(file, readFileSync(file, 'utf8'), { simd: true });
  module.validate();
  const { buffer } = module.toBinary({ log: false, write_debug_names: false });
  module.destroy();
  const relative = path.relative(path.join(root, 'src'), file).replace(/\.wat$/, '.wasm');
  for (const outRoot of ['src', 'dist']) {
    const out = path.join(root, outRoot, relative);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, buffer);
  }
  process.stdout.write(`wasm: ${relative} (${buffer.length} bytes)\n`);
}
