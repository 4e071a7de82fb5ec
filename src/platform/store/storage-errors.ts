/**
 * Failures of the store itself (a full disk, an I/O error, a read-only file system) as the API
 * answers them: `storage_full` (507) when there is no room left, `storage_error` (503) for any
 * other failure to write. Every write to the store goes through {@link storeWrite}, so the caller
 * either gets its write done or one of these errors with nothing changed (SQLite rolls the
 * statement or transaction back), and can leave its own state untouched.
 *
 * A write refused because the data is wrong (a constraint) is a bug of the service, not of the
 * storage: it is passed on unchanged.
 */
import { statfsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { HeadsetdError } from '../../core/errors.js';
import { durabilityOf } from './durability.js';
import { errorMessage } from '../../core/error-message.js';

/** The database a write goes to (database.ts's `Db`, named here from the driver: that file imports this one). */
type Db = Database.Database;

/** Free space under which an I/O error is taken for a full disk: SQLite writes pages of 4 KiB and more. */
const FULL_BELOW_BYTES = 1024 * 1024;

/** SQLite result codes (primary part) that mean the storage failed, not the statement. */
const STORAGE_CODES = new Set([
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'SQLITE_READONLY',
  'SQLITE_CANTOPEN',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_PROTOCOL',
  'SQLITE_NOLFS',
]);
/** Errno codes of file-system calls that mean there is no room left. */
const FULL_ERRNOS = new Set(['ENOSPC', 'EDQUOT']);
/** Errno codes of file-system calls that mean the storage failed otherwise. */
const STORAGE_ERRNOS = new Set(['EIO', 'EROFS', 'EACCES', 'EPERM', 'EFBIG', 'ENOENT', 'EBADF']);

function primaryCode(code: string): string {
  // Extended codes add a suffix: SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED ...
  const match = /^SQLITE_[A-Z]+/.exec(code);
  return match?.[0] ?? code;
}

/** True when the file system holding the database has (almost) no room left. */
function diskFull(db: Db): boolean {
  try {
    const stats = statfsSync(path.dirname(db.name));
    return stats.bavail * stats.bsize < FULL_BELOW_BYTES;
  } catch {
    return false;
  }
}

/**
 * The API error for a failed write of `what` (for a person: "the stream's desired state"), or
 * undefined when the failure is not the storage's.
 */
export function storageError(db: Db, what: string, error: unknown): HeadsetdError | undefined {
  let code: string | undefined;
  if (error instanceof Database.SqliteError) code = error.code;
  else if (error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string')
    code = (error as NodeJS.ErrnoException).code;
  if (!db.open) {
    return new HeadsetdError(
      'storage_error',
      `The store is closed (the service is shutting down), so ${what} was not saved and nothing changed; retry once the service runs again.`,
      { reason: 'closed' },
    );
  }
  if (code === undefined) return undefined;
  const sqlite = primaryCode(code);
  const full =
    sqlite === 'SQLITE_FULL' || FULL_ERRNOS.has(code) || (sqlite === 'SQLITE_IOERR' && diskFull(db));
  if (full) {
    return new HeadsetdError(
      'storage_full',
      `The store is full, so ${what} was not saved and nothing changed. Free space on the file system of the service's data directory, then retry.`,
      { reason: code },
    );
  }
  if (!STORAGE_CODES.has(sqlite) && !STORAGE_ERRNOS.has(code)) return undefined;
  const cause = errorMessage(error);
  return new HeadsetdError(
    'storage_error',
    `The store could not be written (${cause}), so ${what} was not saved and nothing changed. Check the service's data directory (free space, permissions, disk health) and retry.`,
    { reason: code },
  );
}

/**
 * Runs `work`, one statement or one transaction of writes to `db`. A failure of the storage is
 * rethrown as `storage_full` or `storage_error` (see {@link storageError}); nothing was written.
 */
export function storeWrite<T>(db: Db, what: string, work: () => T): T {
  try {
    const done = work();
    // On its way to the disk (durability.ts): a request that wrote is answered once it is there.
    durabilityOf(db)?.committedOne();
    return done;
  } catch (error) {
    throw storageError(db, what, error) ?? error;
  }
}
