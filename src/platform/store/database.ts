/**
 * The service's embedded database: one SQLite file under the data dir, in WAL mode, so that
 * `kill -9` at any moment leaves the last committed state, and a power cut the last state the
 * service acknowledged: each commit's log is flushed to the disk off the event loop
 * (durability.ts), and the API answers a request that wrote only once it is.
 * Each feature owns its tables and registers them as migrations here, applied in order once.
 * Every write goes through `storeWrite` (storage-errors.ts): a full disk is answered as such.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { storeWrite } from './storage-errors.js';
import { durabilityOf, StoreDurability, setDurability } from './durability.js';

export type Db = Database.Database;

export interface Migration {
  /** Unique and stable: a migration's id is recorded once it ran. */
  id: string;
  sql: string;
}

const MIGRATIONS: Migration[] = [
  {
    id: '001-streams',
    sql: `CREATE TABLE streams (
      id TEXT PRIMARY KEY,
      definition TEXT NOT NULL,
      desired TEXT NOT NULL CHECK (desired IN ('created', 'running', 'paused', 'stopped')),
      created TEXT NOT NULL,
      updated TEXT NOT NULL
    )`,
  },
  {
    id: '002-settings',
    sql: `CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  },
  {
    // Each stream's revision, its ETag (docs/api.md §Concurrent edits): 1 when created, one more per edit.
    id: '003-stream-revision',
    sql: `ALTER TABLE streams ADD COLUMN revision INTEGER NOT NULL DEFAULT 1`,
  },
];

/** Registers more migrations (device, impedance history ...) before `openDatabase`. */
export function registerMigration(migration: Migration): void {
  if (!MIGRATIONS.some((m) => m.id === migration.id)) MIGRATIONS.push(migration);
}

export function openDatabase(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, 'headsetd.sqlite'));
  db.pragma('journal_mode = WAL');
  // NORMAL: a commit survives a crash of the process as soon as it returns; the log is flushed to
  // the disk by durability.ts on the thread pool (FULL did it inside every commit, on this thread).
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE IF NOT EXISTS migrations (id TEXT PRIMARY KEY, applied TEXT NOT NULL)');
  const applied = new Set(
    db
      .prepare('SELECT id FROM migrations')
      .all()
      .map((row) => (row as { id: string }).id),
  );
  // The log exists from the first write on; the table above was one (or the log was there).
  setDurability(db, new StoreDurability(`${db.name}-wal`));
  const record = db.prepare('INSERT INTO migrations (id, applied) VALUES (?, ?)');
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.id)) continue;
    storeWrite(db, `the store's table update ${migration.id}`, () => {
      db.transaction(() => {
        db.exec(migration.sql);
        record.run(migration.id, new Date().toISOString());
      })();
    });
  }
  return db;
}

/**
 * Undefined when every commit of `db` is on disk; else resolves once those made so far are. The
 * API awaits it before answering a request (api/app.ts).
 */
export function commitsPending(db: Db): Promise<void> | undefined {
  return durabilityOf(db)?.pending();
}

/** Flushes what is left to the disk and closes the database. */
export async function closeDatabase(db: Db): Promise<void> {
  const durability = durabilityOf(db);
  try {
    await durability?.flushed();
  } finally {
    durability?.close();
    db.close();
  }
}
