/**
 * The device feature's tables (impedance readings, snapshots), registered with the store's
 * migrations. Registering at import time covers a database opened afterwards; {@link ensureTables}
 * applies them to a database that was opened before this module was imported (same id, same
 * bookkeeping as platform/store/database.ts, so they never run twice).
 */
import { type Db, type Migration, registerMigration } from './database.js';
import { storeWrite } from './storage-errors.js';

export const DEVICE_MIGRATIONS: readonly Migration[] = [
  {
    id: '100-impedance-readings',
    sql: `CREATE TABLE impedance_readings (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      session_id TEXT,
      timestamp INTEGER NOT NULL,
      kohms TEXT NOT NULL
    );
    CREATE INDEX impedance_readings_time ON impedance_readings (timestamp);
    CREATE INDEX impedance_readings_session ON impedance_readings (session_id, timestamp)`,
  },
  {
    id: '101-impedance-snapshots',
    sql: `CREATE TABLE impedance_snapshots (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      notes TEXT NOT NULL,
      timestamp TEXT NOT NULL,
      kohms TEXT NOT NULL
    )`,
  },
];

for (const migration of DEVICE_MIGRATIONS) registerMigration(migration);

/** Applies the device migrations that `db` has not run yet. */
export function ensureTables(db: Db): void {
  db.exec('CREATE TABLE IF NOT EXISTS migrations (id TEXT PRIMARY KEY, applied TEXT NOT NULL)');
  db.exec('CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  const has = db.prepare('SELECT 1 FROM migrations WHERE id = ?');
  const record = db.prepare('INSERT INTO migrations (id, applied) VALUES (?, ?)');
  for (const migration of DEVICE_MIGRATIONS) {
    if (has.get(migration.id) !== undefined) continue;
    storeWrite(db, `the store's table update ${migration.id}`, () => {
      db.transaction(() => {
        db.exec(migration.sql);
        record.run(migration.id, new Date().toISOString());
      })();
    });
  }
}
