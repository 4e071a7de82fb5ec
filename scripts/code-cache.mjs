/* global fetch */
/**
 * Makes V8's code cache of the two bundles the `headsetd` command runs (read by it:
 * src/service/bundle-loader.ts): starts the built service once as a user starts it (port 0, a new
 * empty data directory), asks it for GET /system/status, runs a client command against it
 * (`headsetd streams list`), and stops it. Each writes, as it exits, the code of everything its
 * run compiled: the service the cache of the service's bundle (dist/headsetd-service.cjs.cache),
 * the client command that of the command's bundle (dist/headsetd.cjs.cache), which a start of the
 * service runs little of. Without a cache the command works the same and starts slower, so a
 * failure here is a warning, not a failed build.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout } from 'node:timers';

const root = path.resolve(import.meta.dirname, '..');
const command = path.join(root, 'dist', 'headsetd.mjs');
const caches = ['headsetd.cjs', 'headsetd-service.cjs'].map((bundle) => path.join(root, 'dist', `${bundle}.cache`));
const dataDir = mkdtempSync(path.join(tmpdir(), 'headsetd-code-cache-'));

async function warmStart() {
  const child = spawn(
    process.execPath,
    [command, 'serve', '--port', '0', '--data-dir', dataDir],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HEADSETD_WRITE_CODE_CACHE: 'headsetd-service.cjs' } },
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
    const client = spawn(process.execPath, [command, 'streams', 'list', '--url', url, '--data-dir', dataDir], {
      stdio: 'ignore',
      env: { ...process.env, HEADSETD_WRITE_CODE_CACHE: 'headsetd.cjs' },
    });
    const code = await new Promise((resolve) => client.once('exit', resolve));
    if (code !== 0) throw new Error(`headsetd streams list exited with ${code}`);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

try {
  await warmStart();
  const missing = caches.filter((cache) => !existsSync(cache));
  if (missing.length > 0) throw new Error(`not written: ${missing.map((cache) => path.basename(cache)).join(', ')}`);
} catch (error) {
  process.stderr.write(`code cache: not made (${error.message}); the service starts without it\n`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
