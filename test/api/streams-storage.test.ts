/**
 * The store failing under the Streams API, with the real SQLite store: every write (create, edit,
 * delete, signal) either completes or changes nothing, and is answered `507 storage_full` (no room:
 * here the database limited to its current size with `PRAGMA max_page_count`) or
 * `503 storage_error` (any other failure to write: here a store that refuses writes with
 * `PRAGMA query_only`) with a message a person can act on. Once the store takes writes again, the
 * same stream is usable. A real full disk under the real service: test/e2e/streams-full-disk.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ControlPlane, controlPlane } from '../support/control-plane.js';
import { chainStream, expectError, json, ok, OTHER_ID, readStream, signal, stateOf } from './helpers.js';

const ID = OTHER_ID;
/** Overflow pages' worth of meta: storing it needs the database to grow. */
const BULKY = { name: 'bulky', notes: 'x'.repeat(32_000) };

let cp: ControlPlane;
beforeEach(async () => {
  cp = await controlPlane();
});
afterEach(async () => {
  await cp.close();
});

/** The database cannot grow any more (a full disk, as far as SQLite's page allocation goes). */
function fillStore(): () => void {
  const pages = cp.db.pragma('page_count', { simple: true }) as number;
  cp.db.pragma(`max_page_count = ${pages}`);
  return () => {
    cp.db.pragma('max_page_count = 1073741823');
  };
}

/** The store refuses every write (as on a file system remounted read-only). */
function breakStore(): () => void {
  cp.db.pragma('query_only = ON');
  return () => {
    cp.db.pragma('query_only = OFF');
  };
}

function storedDesired(id: string): unknown {
  return (cp.db.prepare('SELECT desired FROM streams WHERE id = ?').get(id) as { desired: string }).desired;
}

describe('a full store (507 storage_full)', () => {
  it('refuses a create with 507 and stores nothing; once there is room the same create succeeds', async () => {
    const free = fillStore();
    const stream = { ...chainStream(ID), meta: BULKY };
    const error = expectError(await json(cp, 'POST', '/stream/streams', stream), 507, 'storage_full');
    expect(error.error.message).toMatch(/store is full.*nothing changed.*Free space/);
    expect(error.error.details).toEqual({ reason: 'SQLITE_FULL' });
    expectError(await json(cp, 'GET', `/stream/streams/${ID}`), 404, 'stream_not_found');
    expect(ok(await json(cp, 'GET', '/stream/streams'))).toEqual({ success: true, streams: [] });
    free();
    ok(await json(cp, 'POST', '/stream/streams', stream));
    expect((await readStream(cp, ID)).meta).toMatchObject(BULKY);
  });

  it('refuses a PUT and a node addition of a running stream with 507, leaving definition and runtime as they were', async () => {
    ok(await json(cp, 'POST', '/stream/streams', chainStream(ID)));
    ok(await signal(cp, ID, 'start'));
    await cp.manager.settle();
    const before = await readStream(cp, ID);
    const free = fillStore();
    const bigger = { ...chainStream(ID), meta: BULKY };
    expectError(await json(cp, 'PUT', `/stream/streams/${ID}`, bigger), 507, 'storage_full');
    const node = { id: 'extra', executable: 'logger', meta: BULKY };
    expectError(await json(cp, 'POST', `/stream/streams/${ID}/nodes`, [node]), 507, 'storage_full');
    expect(await readStream(cp, ID)).toEqual(before);
    expect(cp.runtime.ops(ID)).toEqual(['start']);
    free();
    ok(await json(cp, 'POST', `/stream/streams/${ID}/nodes`, [node]));
    expect(cp.runtime.ops(ID)).toEqual(['start', 'update']);
  });
});

describe('a store that cannot be written (503 storage_error)', () => {
  it('a stop, pause or start refused by the store leaves the stream as it was, not stuck stopping, pausing or starting', async () => {
    ok(await json(cp, 'POST', '/stream/streams', chainStream(ID)));
    ok(await signal(cp, ID, 'start'));
    await cp.manager.settle();
    const repair = breakStore();
    for (const sig of ['stop', 'pause'] as const) {
      const error = expectError(await signal(cp, ID, sig), 503, 'storage_error');
      expect(error.error.message).toMatch(/desired state .* was not saved and nothing changed/);
      expect(await stateOf(cp, ID)).toBe('running');
    }
    // The runtime was never asked: the nodes still run.
    expect(cp.runtime.ops(ID)).toEqual(['start']);
    expect(cp.runtime.running.has(ID)).toBe(true);
    repair();
    ok(await signal(cp, ID, 'stop'));
    await cp.manager.settle();
    expect(await stateOf(cp, ID)).toBe('stopped');
    expect(storedDesired(ID)).toBe('stopped');

    breakStore();
    expectError(await signal(cp, ID, 'start'), 503, 'storage_error');
    expect(await stateOf(cp, ID)).toBe('stopped');
    expect(cp.runtime.running.has(ID)).toBe(false);
    repair();
    ok(await signal(cp, ID, 'start'));
    await cp.manager.settle();
    expect(await stateOf(cp, ID)).toBe('running');
    expect(storedDesired(ID)).toBe('running');
  });

  it('a resume refused by the store leaves the stream paused', async () => {
    ok(await json(cp, 'POST', '/stream/streams', chainStream(ID)));
    ok(await signal(cp, ID, 'start'));
    await cp.manager.settle();
    ok(await signal(cp, ID, 'pause'));
    await cp.manager.settle();
    const repair = breakStore();
    expectError(await signal(cp, ID, 'resume'), 503, 'storage_error');
    expect(await stateOf(cp, ID)).toBe('paused');
    expect(cp.runtime.running.get(ID)?.paused).toBe(true);
    repair();
    ok(await signal(cp, ID, 'resume'));
    await cp.manager.settle();
    expect(await stateOf(cp, ID)).toBe('running');
  });

  it('a delete refused by the store keeps the stream, running; once writable the delete succeeds', async () => {
    ok(await json(cp, 'POST', '/stream/streams', chainStream(ID)));
    ok(await signal(cp, ID, 'start'));
    await cp.manager.settle();
    const repair = breakStore();
    expectError(await json(cp, 'DELETE', `/stream/streams/${ID}`), 503, 'storage_error');
    expect(await stateOf(cp, ID)).toBe('running');
    expect(cp.runtime.running.has(ID)).toBe(true);
    repair();
    ok(await json(cp, 'DELETE', `/stream/streams/${ID}`));
    expectError(await json(cp, 'GET', `/stream/streams/${ID}`), 404, 'stream_not_found');
    expect(cp.runtime.running.has(ID)).toBe(false);
  });

  it('a signal that asks for the desired state already stored needs no write and proceeds', async () => {
    ok(await json(cp, 'POST', '/stream/streams', chainStream(ID)));
    cp.runtime.failStart.set('filt', 'the filter cannot start');
    expectError(await signal(cp, ID, 'start'), 422, 'validation_failed');
    cp.runtime.failStart.clear();
    // In error, still wanted running: a retry writes nothing, so a broken store does not block it.
    breakStore();
    ok(await signal(cp, ID, 'start'));
    await cp.manager.settle();
    expect(await stateOf(cp, ID)).toBe('running');
  });
});
