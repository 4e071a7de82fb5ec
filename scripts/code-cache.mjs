/* global fetch */
/**
 * Makes V8's code cache of the four bundles the `headsetd` command, a stream's worker and the device's
 * thread run (read
 * by src/service/bundle-loader.ts): starts the built service once as a user starts it (port 0, a
 * new empty data directory), asks it for GET /system/status, creates and starts a small stream
 * (which boots a worker), runs a client command against it (`headsetd streams list`), and stops
 * it. The service writes, as it exits, the code of everything its run compiled, the cache of the
 * service's bundle (dist/headsetd-service.cjs.cache); the worker, once booted, that of the worker's
 * bundle (dist/stream-host.cjs.cache); the device's thread, booted by starting EEG acquisition,
 * that of its bundle (dist/device-thread.cjs.cache); the client command, as it exits, that of the command's
 * bundle (dist/headsetd.cjs.cache), which a start of the service runs little of. Without a cache
 * the command works the same and starts slower, so a failure here is a warning, not a failed build.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout } from 'node:timers';

const root = path.resolve(import.meta.dirname, '..');
const command = path.join(root, 'dist', 'headsetd.mjs');
const caches = ['headsetd.cjs', 'headsetd-service.cjs', 'stream-host.cjs', 'device-thread.cjs'].map((bundle) => path.join(root, 'dist', `${bundle}.cache`));
const dataDir = mkdtempSync(path.join(tmpdir(), 'headsetd-code-cache-'));

const STREAM = {
  id: '0c0de0ca-c4e0-4a5e-9b1d-5ea0d0000001',
  meta: { name: 'code cache' },
  nodes: [
    { id: 'gen', executable: 'signal-generator', config: { sampleRate: 250, channels: 2, amplitudes: [1, 1], frequencies: [10, 20] } },
    { id: 'tap', executable: 'tap', config: {} },
  ],
  pipes: [{ id: 'p', source: 'gen', destination: 'tap' }],
};

/** Creates and starts a stream as a client does, and waits until it runs (its worker has booted). */
async function startStream(url) {
  const post = async (route, body) => {
    const answer = await fetch(`${url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!answer.ok) throw new Error(`POST ${route}: ${answer.status} ${await answer.text()}`);
  };
  await post('/stream/streams', STREAM);
  await post(`/stream/streams/${STREAM.id}/signal`, { signal: 'start' });
  for (let tries = 0; tries < 600; tries++) {
    const status = await (await fetch(`${url}/stream/streams/${STREAM.id}/status`)).json();
    if (status.status?.state === 'running') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the stream did not run within 30 s');
}

/** Starts EEG acquisition and waits for its first samples: the device's thread has booted. */
async function acquire(url) {
  const answer = await fetch(`${url}/system/sensors/eeg/stream`, { method: 'POST' });
  if (!answer.ok) throw new Error(`POST /system/sensors/eeg/stream: ${answer.status} ${await answer.text()}`);
  for (let tries = 0; tries < 600; tries++) {
    const status = await (await fetch(`${url}/system/status`)).json();
    if ((status.eeg?.samples ?? status.status?.eeg?.samples ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no EEG sample within 30 s');
}

async function warmStart() {
  const child = spawn(
    process.execPath,
    [command, 'serve', '--port', '0', '--data-dir', dataDir],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HEADSETD_WRITE_CODE_CACHE: 'headsetd-service.cjs,stream-host.cjs,device-thread.cjs' } },
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
    await startStream(url);
    await acquire(url);
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
