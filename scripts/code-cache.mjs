/* global fetch */
/**
 * Makes V8's code cache of the service's bundle (dist/headsetd.cjs.cache, read by the `headsetd`
 * command: src/service/bundle-loader.ts): starts the built service once as a user starts it (port 0, a new
 * empty data directory), asks it for GET /system/status, stops it, and the loader writes the code
 * of everything that start compiled as it exits. Without the cache the service works the same and
 * starts slower, so a failure here is a warning, not a failed build.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout } from 'node:timers';

const root = path.resolve(import.meta.dirname, '..');
const cache = path.join(root, 'dist', 'headsetd.cjs.cache');
const dataDir = mkdtempSync(path.join(tmpdir(), 'headsetd-code-cache-'));

async function warmStart() {
  const child = spawn(
    process.execPath,
    [path.join(root, 'dist', 'headsetd.mjs'), 'serve', '--port', '0', '--data-dir', dataDir],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HEADSETD_WRITE_CODE_CACHE: '1' } },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk.toString('utf8');
      const match = /headsetd listening on (http:\/\/\S+)/.exec(out);
      if (match !== null) resolve(match[1]);
    });
    child.stderr.resume();
    child.once('exit', (code) => reject(new Error(`the service exited with ${code} before listening`)));
    setTimeout(() => reject(new Error('the service did not listen within 60 s')), 60_000).unref();
  });
  try {
    await (await fetch(`${url}/system/status`)).arrayBuffer();
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

try {
  await warmStart();
  if (!existsSync(cache)) throw new Error('no cache was written');
} catch (error) {
  process.stderr.write(`code cache: not made (${error.message}); the service starts without it\n`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
