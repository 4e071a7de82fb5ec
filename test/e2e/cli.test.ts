/**
 * The `headsetd` command as a user runs it: the listening line, help and version, `validate` giving
 * exactly the API's answer, a clean SIGTERM, and streams surviving `kill -9`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from '../../src/service/data-dir-lock.js';
import { announceCreatedToken } from '../../src/platform/security/token.js';
import { spawnCli } from '../support/client-cli.js';
import { CLI, json, type Service, startService, tempDataDir } from '../support/service.js';
import { eventually } from '../support/wait.js';

// One service for the tests that need one running and change nothing of it (a stream one creates
// it deletes at once): its listening line and API, a port in use, a data directory in use, and
// validate's comparisons with the API.
let shared: Service;
beforeAll(async () => {
  shared = await startService();
});
afterAll(async () => {
  await shared.stop('SIGKILL');
});

// The services a test starts for itself, killed after it.
const running: Service[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop('SIGKILL')));
});

async function start(options?: Parameters<typeof startService>[0]): Promise<Service> {
  const service = await startService(options);
  running.push(service);
  return service;
}

const GENERATOR_TO_LOGGER = (id: string) => `
id: ${id}
meta: { name: gen-to-logger }
nodes:
  - { id: gen, executable: signal-generator, config: { sampleRate: 100, amplitudes: [1], frequencies: [5] } }
  - { id: log, executable: logger }
pipes:
  - { id: p, source: gen, destination: log }
`;

describe('headsetd serve', () => {
  test('prints exactly one line to stdout when ready, and serves the API there', async () => {
    const { status, body } = await json(`${shared.url}/stream/streams`);
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, streams: [] });
    expect(shared.stdout).toEqual([]);
  });

  test('SIGTERM stops the service with exit code 0', async () => {
    const service = await start();
    await json(`${service.url}/stream/streams/yaml`, {
      method: 'POST',
      headers: { 'content-type': 'text/yaml' },
      body: GENERATOR_TO_LOGGER('11111111-2222-4333-8444-555555555555'),
    });
    await json(`${service.url}/stream/streams/11111111-2222-4333-8444-555555555555/signal`, {
      method: 'POST',
      body: new URLSearchParams({ signal: 'start' }),
    });
    const exit = await service.stop('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
  });

  test('streams survive kill -9, and the running one runs again after restart', async () => {
    const dataDir = tempDataDir();
    const first = await start({ dataDir });
    const runningId = 'aaaaaaaa-0000-4000-8000-000000000001';
    const idleId = 'aaaaaaaa-0000-4000-8000-000000000002';
    for (const id of [runningId, idleId]) {
      const created = await json(`${first.url}/stream/streams/yaml`, {
        method: 'POST',
        headers: { 'content-type': 'text/yaml' },
        body: GENERATOR_TO_LOGGER(id),
      });
      expect(created.body).toEqual({ id, success: true });
    }
    await json(`${first.url}/stream/streams/${runningId}/signal`, {
      method: 'POST',
      body: new URLSearchParams({ signal: 'start' }),
    });
    await eventually(async () => {
      const { body } = await json(`${first.url}/stream/streams/${runningId}/status`);
      return body.status.state === 'running' ? true : undefined;
    });
    await first.stop('SIGKILL');

    const second = await start({ dataDir });
    const list = await json(`${second.url}/stream/streams`);
    expect(list.body.streams.map((s: { id: string }) => s.id).sort()).toEqual([runningId, idleId].sort());
    const state = await eventually(async () => {
      const { body } = await json(`${second.url}/stream/streams/${runningId}/status`);
      return body.status.state === 'running' ? body.status : undefined;
    });
    expect(state.nodes.map((n: { state: string }) => n.state)).toEqual(['running', 'running']);
    const idle = await json(`${second.url}/stream/streams/${idleId}/status`);
    expect(idle.body.status.state).toBe('created');
  });

  test('a port in use is a clear error, not a crash trace', () => {
    const result = spawnSync(
      process.execPath,
      [CLI, 'serve', '--port', String(shared.port), '--data-dir', tempDataDir(), '--log-level', 'silent'],
      {
        encoding: 'utf8',
        timeout: 15_000,
      },
    );
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/EADDRINUSE|in use/);
  });
});

describe('one service per data directory', () => {
  test("a second serve on the same data directory exits 1 naming the first one's pid (it ran alongside)", async () => {
    const first = shared;
    const lockFile = path.join(first.dataDir, LOCK_FILE);
    const lockBefore = readFileSync(lockFile, 'utf8');
    const second = spawnSync(
      process.execPath,
      [CLI, 'serve', '--port', '0', '--data-dir', first.dataDir, '--log-level', 'info'],
      { encoding: 'utf8', timeout: 15_000 },
    );
    expect(second.status).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr).toContain(`in use by another headsetd (pid ${String(first.process.pid)})`);
    // It stopped before the store or any stream: it never logged, and the first one's lock stands.
    expect(second.stderr).not.toContain('"level"');
    expect(readFileSync(lockFile, 'utf8')).toBe(lockBefore);
    const { status } = await json(`${first.url}/stream/streams`);
    expect(status).toBe(200);
  });

  test('the lock left by kill -9 is stale: the next serve takes the directory', async () => {
    const dataDir = tempDataDir();
    const first = await start({ dataDir });
    const lockFile = path.join(dataDir, LOCK_FILE);
    await first.stop('SIGKILL');
    expect(readFileSync(lockFile, 'utf8')).toMatch(new RegExp(`^${String(first.process.pid)} `));
    const second = await start({ dataDir });
    expect(readFileSync(lockFile, 'utf8')).toMatch(new RegExp(`^${String(second.process.pid)} `));
    expect(await second.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(existsSync(lockFile)).toBe(false);
  });

  test('a lock naming a living process is kept; one whose pid was reused (other start time) is stale', () => {
    const dataDir = tempDataDir();
    const lock = lockDataDir(dataDir);
    expect(() => lockDataDir(dataDir)).toThrow(DataDirLockedError);
    lock.release();
    // This process's pid, but a start time it does not have: the owner died and the pid was reused.
    writeFileSync(path.join(dataDir, LOCK_FILE), `${String(process.pid)} 1\n`);
    const taken = lockDataDir(dataDir);
    expect(readFileSync(taken.file, 'utf8')).not.toBe(`${String(process.pid)} 1\n`);
    taken.release();
    // Garbage in place of a pid is stale too.
    writeFileSync(path.join(dataDir, LOCK_FILE), 'x');
    lockDataDir(dataDir).release();
    expect(existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);
  });
});

describe('the API token at creation', () => {
  test('is not printed to a stderr that is not a terminal (it landed in service logs); the log names its file', async () => {
    const dataDir = tempDataDir();
    // IPv4-mapped loopback: served on loopback only, yet not one of the addresses taken as loopback,
    // so the service requires (and creates) a token without listening beyond this machine.
    const child = spawn(
      process.execPath,
      [
        CLI,
        'serve',
        '--port',
        '0',
        '--data-dir',
        dataDir,
        '--host',
        '::ffff:127.0.0.1',
        '--log-level',
        'info',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await eventually(async () => (stdout.includes('listening on') ? true : undefined), 15_000, 'listening');
      await eventually(
        async () => (stderr.includes('tokenFile') ? true : undefined),
        5000,
        'the token log line',
      );
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    const token = readFileSync(path.join(dataDir, 'token'), 'utf8').trim();
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(stderr).not.toContain(token);
    expect(stdout).not.toContain(token);
    expect(stderr).toContain(path.join(dataDir, 'token'));
  });

  test('is printed when stderr is a terminal', () => {
    const written: string[] = [];
    const logged: unknown[] = [];
    const logger = { warn: (...args: unknown[]) => logged.push(args) } as unknown as Pick<Logger, 'warn'>;
    announceCreatedToken(
      't'.repeat(43),
      '/data/token',
      { isTTY: true, write: (t: string) => written.push(t) },
      logger,
    );
    expect(written.join('')).toContain('t'.repeat(43));
    expect(logged).toEqual([]);
    announceCreatedToken(
      'u'.repeat(43),
      '/data/token',
      { isTTY: false, write: (t: string) => written.push(t) },
      logger,
    );
    expect(written.join('')).not.toContain('u'.repeat(43));
    expect(JSON.stringify(logged)).not.toContain('u'.repeat(43));
    expect(JSON.stringify(logged)).toContain('/data/token');
  });
});

describe('headsetd validate', () => {
  const documents: Record<string, string> = {
    valid: GENERATOR_TO_LOGGER('bbbbbbbb-0000-4000-8000-000000000001'),
    cycle: `
id: bbbbbbbb-0000-4000-8000-000000000002
nodes:
  - { id: a, executable: filter, config: { lowpass: 10 } }
  - { id: b, executable: filter, config: { lowpass: 10 } }
pipes:
  - { id: p1, source: a, destination: b }
  - { id: p2, source: b, destination: a }
`,
    badConfig: `
id: bbbbbbbb-0000-4000-8000-000000000003
nodes:
  - { id: g, executable: signal-generator, config: { sampleRate: 0, amplitudes: [1], frequencies: [5] } }
`,
    malformed: 'id: x\n  nodes: [',
    unknownField: '{"id": "bbbbbbbb-0000-4000-8000-000000000004", "nodez": []}',
    // Deeper than any body may be: refused alike (regression: validate accepted what the API refuses).
    tooDeep: `{"id": "bbbbbbbb-0000-4000-8000-000000000005", "meta": {"x": ${'['.repeat(80)}${']'.repeat(80)}}}`,
    // YAML as deep: refused before its values are built, offline as online (see body-depth.test.ts).
    tooDeepYaml: `id: bbbbbbbb-0000-4000-8000-000000000006\nmeta:\n  x: ${'['.repeat(800)}${']'.repeat(800)}\n`,
  };

  // On the shared service, all at once: each document has an id of its own, or one the API refuses.
  test.concurrent.for(Object.keys(documents))(
    'gives the same answer as the API for the %s document',
    async (name, { expect }) => {
      const file = path.join(shared.dataDir, `${name}.yaml`);
      writeFileSync(file, documents[name] ?? '');
      const [offline, online] = await Promise.all([
        spawnCli(['validate', file, '--data-dir', shared.dataDir]),
        json(`${shared.url}/stream/streams/yaml`, {
          method: 'POST',
          headers: { 'content-type': 'text/yaml' },
          body: documents[name] ?? '',
        }),
      ]);
      // The shared service keeps no stream.
      if (online.status === 200)
        await json(`${shared.url}/stream/streams/${online.body.id}`, { method: 'DELETE' });
      expect(JSON.parse(offline.stdout)).toEqual(online.body);
      expect(offline.status).toBe(online.status === 200 ? 0 : 1);
    },
  );
});

describe.concurrent('headsetd --help and --version', () => {
  test('--version prints the package version', async ({ expect }) => {
    const result = await spawnCli(['--version']);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  test('--help lists the commands and every flag', async ({ expect }) => {
    const result = await spawnCli(['--help']);
    expect(result.status).toBe(0);
    for (const word of [
      'serve',
      'validate',
      'token',
      '--host',
      '--port',
      '--data-dir',
      '--device',
      '--seed',
      '--log-level',
      '--workers',
    ]) {
      expect(result.stdout).toContain(word);
    }
  });

  test('an unknown flag exits 2 with a hint', async ({ expect }) => {
    const result = await spawnCli(['serve', '--prot', '1']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--help');
  });
});
