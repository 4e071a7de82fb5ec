/**
 * The store's commits and the disk: a commit no longer waits for fsync on the event loop
 * (`synchronous = NORMAL`, which survives kill -9), and its log is flushed on the thread pool
 * before the API answers (`commitsPending`), or within BACKGROUND_SYNC_MS otherwise.
 */
import { rmSync } from 'node:fs';
import { afterEach, expect, test } from 'vitest';
import { closeDatabase, commitsPending, type Db, openDatabase } from './database.js';
import { storeWrite } from './storage-errors.js';
import { eventually } from '../../../test/support/wait.js';
import { scratchDir } from '../../../test/support/scratch.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(): Db {
  const dir = scratchDir('headsetd-durability');
  dirs.push(dir);
  const db = openDatabase(dir);
  db.exec('CREATE TABLE IF NOT EXISTS t (v INTEGER)');
  return db;
}

test('a commit no longer flushes the disk on the event loop: the flush is pending until the thread pool did it', async () => {
  const db = open();
  expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
  await commitsPending(db);
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  for (let i = 0; i < 3; i++) storeWrite(db, 'a row', () => insert.run(i));
  const flushing = commitsPending(db);
  expect(flushing).toBeInstanceOf(Promise);
  await flushing;
  expect(commitsPending(db)).toBeUndefined();
  await closeDatabase(db);
});

test('a commit made outside a request reaches the disk by itself, soon after', async () => {
  const db = open();
  await commitsPending(db);
  storeWrite(db, 'a row', () => db.prepare('INSERT INTO t (v) VALUES (1)').run());
  expect(commitsPending(db)).toBeInstanceOf(Promise);
  await eventually(() => (commitsPending(db) === undefined ? true : undefined), 5000, 'the background flush');
  await closeDatabase(db);
});
