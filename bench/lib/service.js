/**
 * Starts the real service (`node dist/headsetd.mjs serve`) on 127.0.0.1 with a free port and a temporary
 * data directory, and stops it: SIGTERM, then SIGKILL if it has not exited within 8 s. The data
 * directory is removed afterwards.
 */
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';
import { URL } from 'node:url';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { requestJson } from './http-load.js';

/**
 * The service's entry; HEADSETD_BENCH_CLI names another build's (to measure a change before and
 * after in one run of the same suite).
 */
export const SERVICE_CLI =
  process.env.HEADSETD_BENCH_CLI ?? new URL('../../dist/headsetd.mjs', import.meta.url).pathname;
const CLI = SERVICE_CLI;
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 8_000;

/**
 * CPU seconds (user + system, all threads) process `pid` has used so far; undefined off Linux.
 * Summed from each thread's /proc/PID/task/TID/schedstat (nanoseconds on a CPU, see the kernel's
 * sched-stats.rst), so that a 10 s window is not rounded to /proc/PID/stat's 10 ms ticks; a
 * thread that ended takes its time with it, so windows are taken while the threads run.
 */
export function processCpuSeconds(pid) {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    return ns / 1e9;
  } catch {
    return undefined;
  }
}

/**
 * Resolves with `{ url, pid, dataDir, cpuSeconds(), stop() }` once the service prints its listening
 * line. `nodeOptions`: flags for node itself (a profiler, heap snapshots on a signal); `logLevel`:
 * `--log-level` (default `warn`; null leaves the service's default); `serveOptions`: more flags of
 * `serve` (`--workers 1`).
 */
export async function startService({ nodeOptions = [], logLevel = 'warn', serveOptions = [] } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'headsetd-bench-api-'));
  const child = spawn(
    process.execPath,
    [
      ...nodeOptions,
      CLI,
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      // null: the service's default level, as a user starts it.
      ...(logLevel === null ? [] : ['--log-level', logLevel]),
      ...serveOptions,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = await new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(
      () => reject(new Error(`headsetd did not start in ${START_TIMEOUT_MS} ms: ${stderr}`)),
      START_TIMEOUT_MS,
    );
    child.stdout.on('data', (chunk) => {
      stdout += chunk.toString('utf8');
      const match = /headsetd listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`headsetd exited with ${code} before listening: ${stderr}`));
    });
  });
  return {
    url,
    pid: child.pid,
    dataDir,
    /** CPU seconds (user + system, all threads) the service has used so far; undefined off Linux. */
    cpuSeconds() {
      return processCpuSeconds(child.pid);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A generator (channels × rate, 20 µV at 10 Hz) feeding a websocket node: the suites' stream. */
export function generatorToWebsocket(rate, channels) {
  return {
    nodes: [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: rate, amplitudes: [20], frequencies: [10], channels },
      },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
    ],
    pipes: [{ id: 'p', source: 'gen', destination: 'ws' }],
  };
}

/** Creates and starts a stream of `nodes` and `pipes` on the service; answers its status. */
export async function startStream(service, { nodes, pipes }) {
  const id = randomUUID();
  await requestJson(service.url, 'POST', '/stream/streams', { id, nodes, pipes });
  await requestJson(service.url, 'POST', `/stream/streams/${id}/signal`, { signal: 'start' });
  const { body } = await requestJson(service.url, 'GET', `/stream/streams/${id}/status`);
  return { id, status: body.status };
}
