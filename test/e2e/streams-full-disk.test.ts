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
 *
 * A recording when the disk fills stops with a `disk full` lastError and leaves a file EDFlib and
 * MNE open; every kind of edit of the stream answers 507 and changes nothing (its ETag neither);
 * once space is freed the edits apply and the recorder, restarted, records into a new file.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { edflibCheck } from '../support/edf-check.js';
import { mneRead } from '../support/mne-check.js';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

const ID = 'eeeeeeee-0000-4000-8000-000000000001';
const MOUNT = 'mount -t tmpfs -o size=2m tmpfs "$0" && exec "$@"';

/** Whether this machine lets an unprivileged process mount a tmpfs in namespaces of its own. */
function canMountTmpfs(): boolean {
  const dir = scratchDir('headsetd-ns-probe');
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
    const dataDir = scratchDir('headsetd-full');
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
    // A start may be answered as under way (docs/api.md §Lifecycle) on a busy machine: the
    // stream is read once it runs.
    const running = () =>
      eventually(
        async () => {
          const now = await status();
          return now.state === 'running' ? now : undefined;
        },
        10_000,
        'the stream running',
      );
    expect((await create(stream)).status).toBe(200);
    expect((await signal('start')).status).toBe(200);
    await running();

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
    const again = await running();
    expect(again.nodes.map((n: { state: string }) => n.state)).toEqual(['running', 'running']);
  }, 40_000);

  test('a recording stops on the full disk with a valid file; edits answer 507 and change nothing; once space is freed both work again', async () => {
    const dataDir = scratchDir('headsetd-full');
    service = await startService({ dataDir, wrapper: ['unshare', '-rm', 'sh', '-c', MOUNT, dataDir] });
    const { url } = service;
    const seen = `/proc/${String(service.process.pid)}/root${dataDir}`;
    const stream = `${url}/stream/streams/${ID}`;
    const send = (method: string, where: string, body: unknown, headers: Record<string, string> = {}) =>
      json(where, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const definition = {
      id: ID,
      meta: { name: 'before' },
      nodes: [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 500, amplitudes: [100], frequencies: [7], channels: 4 },
        },
        { id: 'rec', executable: 'recorder', config: { filename: 'full', format: 'edf' } },
        { id: 'log', executable: 'logger' },
        { id: 'spare', executable: 'logger' },
      ],
      pipes: [
        { id: 'p1', source: 'gen', destination: 'rec', policy: 'block' },
        { id: 'p2', source: 'gen', destination: 'log' },
      ],
    };
    expect((await send('POST', `${url}/stream/streams`, definition)).status).toBe(200);
    expect((await send('POST', `${stream}/signal`, { signal: 'start' })).status).toBe(200);
    const node = async (id: string) => {
      const { body } = await json(`${stream}/status`);
      return body.status.nodes.find((n: { id: string }) => n.id === id) as {
        state: string;
        metrics: { lastError: string | null; samplesProcessed: number };
      };
    };
    await eventually(
      async () => {
        const { body } = await json(`${url}/system/recordings`);
        return body.recordings.some(
          (r: { name: string; durationSeconds: number }) => r.name === 'full.edf' && r.durationSeconds >= 1,
        )
          ? true
          : undefined;
      },
      20_000,
      'a second recorded',
    );

    const filler = fill(seen);
    const rec = await eventually(
      async () => {
        const n = await node('rec');
        return n.state === 'error' ? n : undefined;
      },
      20_000,
      'the recorder stopped by the full disk',
    );
    expect(rec.metrics.lastError).toMatch(
      /^disk full: recording full\.edf stopped after \d+ s; the file is valid up to there/,
    );
    // The rest of the stream runs on; the recording is listed, and opens in EDFlib and MNE.
    expect((await node('gen')).state).toBe('running');
    expect((await node('log')).state).toBe('running');
    const { body: list } = await json(`${url}/system/recordings`);
    expect(list.recordings.find((r: { name: string }) => r.name === 'full.edf')).toMatchObject({
      complete: false,
    });
    const file = path.join(seen, 'recordings', 'full.edf');
    expect(edflibCheck(file, { samples: false }).ok).toBe(true);
    expect((await mneRead([file], 1))[0]?.ok).toBe(true);

    // Every edit answers 507 and changes nothing, its revision included.
    const before = await json(stream);
    const tag = (await fetch(stream)).headers.get('etag');
    const edits: [string, string, unknown][] = [
      ['PUT', stream, { ...definition, meta: { name: 'after' } }],
      ['POST', `${stream}/nodes`, [{ id: 'log2', executable: 'logger' }]],
      ['POST', `${stream}/pipes`, [{ id: 'p3', source: 'gen', destination: 'spare' }]],
      ['DELETE', `${stream}/pipes`, ['p2']],
      ['DELETE', `${stream}/nodes`, ['log']],
    ];
    for (const [method, where, body] of edits) {
      const answer = await send(method, where, body);
      expect(answer.status, `${method} ${where}: ${JSON.stringify(answer.body)}`).toBe(507);
      expect(answer.body.error.code).toBe('storage_full');
      expect(answer.body.error.message).toMatch(/store is full.*nothing changed.*Free space/);
    }
    expect(await json(stream)).toEqual(before);
    expect((await fetch(stream)).headers.get('etag')).toBe(tag);

    // Space freed: the same edit applies (on the revision read before), and the recorder,
    // restarted, records into a new file.
    rmSync(filler);
    const put = await send(
      'PUT',
      stream,
      { ...definition, meta: { name: 'after' } },
      { 'if-match': tag ?? '' },
    );
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await json(stream)).body.stream.meta.name).toBe('after');
    expect((await send('POST', `${stream}/nodes/rec/signal`, { signal: 'restart' })).status).toBe(200);
    await eventually(
      async () => {
        const n = await node('rec');
        return n.state === 'running' && n.metrics.samplesProcessed > 0 ? true : undefined;
      },
      20_000,
      'the recorder recording again',
    );
    await eventually(
      async () => {
        const { body } = await json(`${url}/system/recordings`);
        return body.recordings.some((r: { name: string }) => r.name === 'full-2.edf') ? true : undefined;
      },
      20_000,
      'the new recording listed',
    );
    expect(edflibCheck(path.join(seen, 'recordings', 'full-2.edf'), { samples: false }).ok).toBe(true);
  }, 60_000);
});
