/**
 * Start-up as a process: spawns `node <argv>` and times it from the spawn to the listening line it
 * prints on stdout (`... listening on http://...`: headsetd's and the bare servers' alike), then
 * stops it with SIGTERM and waits for its exit. Its stderr is not read (ignored, so it cannot fill
 * a pipe and stall the child).
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

/** Spawns `argv`; resolves with the ms until it printed a listening line, then stops it. */
export async function timeToListen(argv) {
  const started = performance.now();
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'ignore'] });
  const ms = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk.toString('utf8');
      if (/listening on http/.test(out)) resolve(performance.now() - started);
    });
    child.once('exit', (code) => reject(new Error(`${argv[0]} exited with ${code} before listening`)));
  });
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  return ms;
}
