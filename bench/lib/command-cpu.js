/**
 * The CPU of a short command: spawns `node --import cpu-at-exit.mjs <argv>` and resolves with the
 * ms of CPU (user + system, every thread) the process had used when it exited, and its exit code.
 * Its output is not read (ignored).
 */
import { spawn } from 'node:child_process';
import process from 'node:process';
import { URL } from 'node:url';

const HOOK = new URL('./cpu-at-exit.mjs', import.meta.url).pathname;

export async function commandCpuMs(argv) {
  const child = spawn(process.execPath, ['--import', HOOK, ...argv], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
  });
  let report = '';
  child.stdio[3].on('data', (chunk) => (report += chunk.toString('utf8')));
  const code = await new Promise((resolve) => child.once('close', resolve));
  const us = Number.parseInt(report, 10);
  if (!Number.isFinite(us))
    throw new Error(`${argv.join(' ')} exited with ${code} without reporting its CPU`);
  return { ms: us / 1000, code };
}
