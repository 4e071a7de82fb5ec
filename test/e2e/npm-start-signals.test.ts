/**
 * Regression: SIGTERM to the `npm start` process left the service running, adopted by pid 1. npm
 * runs a script through `sh -c`; Debian's sh (dash) forks the command rather than replacing itself
 * with it, and npm forwards SIGTERM and SIGINT to that shell only, which dies of them: the service
 * never heard the signal. The script now `exec`s the service, so the process npm signals and waits
 * for is headsetd itself, which stops its streams and exits (README §Configuration).
 *
 * npm runs here in a process group of its own; after it exits, no process may be left in it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, expect, test } from 'vitest';
import { ROOT, tempDataDir } from '../support/service.js';

const npmFound = spawnSync('npm', ['--version'], { stdio: 'ignore' }).status === 0;

let group: number | undefined;

afterEach(() => {
  // On failure: nothing of this test may outlive it.
  if (group !== undefined) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // The group is empty: as it should be.
    }
  }
  group = undefined;
});

/** True while any process of the group `pgid` exists. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True while the process `pid` exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function npmStart(): Promise<{ npm: ChildProcess; service: number; exited: Promise<number | null> }> {
  const dataDir = tempDataDir();
  const npm = spawn('npm', ['start', '--', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  group = npm.pid;
  const exited = new Promise<number | null>((resolve) => npm.once('exit', resolve));
  const stderr: string[] = [];
  createInterface({ input: npm.stderr }).on('line', (line) => stderr.push(line));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: npm.stdout }).on('line', (line) => {
      if (line.startsWith('headsetd listening on http://')) resolve();
    });
    void exited.then((code) => {
      reject(new Error(`npm start exited (${code}) before the service listened: ${stderr.join('\n')}`));
    });
  });
  // The service's pid, from the lock it holds on its data directory.
  const service = Number(readFileSync(path.join(dataDir, 'headsetd.lock'), 'utf8').trim().split(/\s+/)[0]);
  expect(service).toBeGreaterThan(1);
  return { npm, service, exited };
}

test.skipIf(!npmFound).each(['SIGTERM', 'SIGINT'] as const)(
  '%s to the npm start process stops the service: no process of it is left (the service survived with parent pid 1)',
  async (signal) => {
    const { npm, service, exited } = await npmStart();
    expect(alive(service)).toBe(true);
    npm.kill(signal);
    await exited;
    expect(alive(service), `headsetd (pid ${service}) outlived npm start`).toBe(false);
    expect(groupAlive(npm.pid ?? 0)).toBe(false);
  },
  60_000,
);
