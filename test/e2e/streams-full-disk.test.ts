/**
 * The real service on a really full disk: its data dir is a 2 MiB tmpfs of its own (mounted in a
 * user and mount namespace, which needs no privileges where the kernel allows unprivileged user
 * namespaces; elsewhere the test is skipped and test/api/streams-storage.test.ts covers the same
 * answers with a store made full by SQLite's max_page_count). The test fills the file system
 * through /proc/<pid>/root, so the store's next write fails with ENOSPC.
 *
 * Signals, deletes and creates then answer 507 storage_full and change nothing: the stream keeps
 * running with its nodes (it was left `stopping` with its nodes running, for good). Once space is
 * freed the same stream stops and starts again.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { json, type Service, startService } from '../support/service.js';

const ID = 'eeeeeeee-0000-4000-8000-000000000001';
const MOUNT = 'mount -t tmpfs -o size=2m tmpfs "$0" && exec "$@"';

/** Whether this machine lets an unprivileged process mount a tmpfs in namespaces of its own. */
function canMountTmpfs(): boolean {
  const dir = mkdtempSync(path.join(tmpdir(), 'headsetd-ns-probe-'));
  try {
    return spawnSync('unshare', ['-rm', 'sh', '-c', MOUNT, dir, 'true'], { timeout: 10_000 }).status === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Fills the file system holding `dir` to the last byte; returns the filler's path. */
function fill(dir: string): string {
  const file = path.join(dir, 'filler');
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(4096);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  return file;
}

let service: Service | undefined;
afterEach(async () => {
  await service?.stop('SIGKILL');
  service = undefined;
});

describe.skipIf(!canMountTmpfs())('a full data dir', () => {
  test('signals, deletes and creates answer 507 and change nothing; once space is freed the stream is usable', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'headsetd-full-'));
    service = await startService({ dataDir, wrapper: ['unshare', '-rm', 'sh', '-c', MOUNT, dataDir] });
    const { url } = service;
    // The service's view of its data dir: the tmpfs in its mount namespace.
    const seen = `/proc/${String(service.process.pid)}/root${dataDir}`;
    const signal = (name: string) =>
      json(`${url}/stream/streams/${ID}/signal`, {
        method: 'POST',
        body: new URLSearchParams({ signal: name }),
      });
    const status = async () => (await json(`${url}/stream/streams/${ID}/status`)).body.status;
    const stream = {
      id: ID,
      nodes: [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 100, amplitudes: [1], frequencies: [5] },
        },
        { id: 'log', executable: 'logger' },
      ],
      pipes: [{ id: 'p', source: 'gen', destination: 'log' }],
    };
    const create = (body: unknown) =>
      json(`${url}/stream/streams`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await create(stream)).status).toBe(200);
    expect((await signal('start')).status).toBe(200);
    expect((await status()).state).toBe('running');

    const filler = fill(seen);
    for (const name of ['stop', 'pause']) {
      const answer = await signal(name);
      expect(answer.status, JSON.stringify(answer.body)).toBe(507);
      expect(answer.body.error.code).toBe('storage_full');
      expect(answer.body.error.message).toMatch(/store is full.*nothing changed.*Free space/);
      const now = await status();
      expect(now.state).toBe('running');
      expect(now.nodes.map((n: { state: string }) => n.state)).toEqual(['running', 'running']);
    }
    expect((await json(`${url}/stream/streams/${ID}`, { method: 'DELETE' })).status).toBe(507);
    expect((await create({ ...stream, id: 'eeeeeeee-0000-4000-8000-000000000002' })).status).toBe(507);
    expect((await json(`${url}/stream/streams`)).body.streams).toEqual([
      expect.objectContaining({ id: ID, state: 'running' }),
    ]);

    rmSync(filler);
    expect((await signal('stop')).status).toBe(200);
    expect((await status()).state).toBe('stopped');
    expect((await signal('start')).status).toBe(200);
    const again = await status();
    expect(again.state).toBe('running');
    expect(again.nodes.map((n: { state: string }) => n.state)).toEqual(['running', 'running']);
  }, 40_000);
});
