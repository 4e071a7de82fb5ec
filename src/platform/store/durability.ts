/**
 * When the store's commits reach the disk, without holding the event loop for it.
 *
 * SQLite in WAL mode with `synchronous = FULL` calls fsync on the write-ahead log inside every
 * commit: 3–11 ms on this kind of storage, on the API's thread, for every edit, signal, setting
 * and impedance reading (the event loop's p99 delay was 12–15 ms during a soak,
 * docs/performance-areas.md §The store's commits). The database now commits with `synchronous = NORMAL`:
 * the commit is in the log (in the operating system's cache) when `run` returns, which survives
 * `kill -9` of the service, and the log is flushed to the disk by `fdatasync` on libuv's thread
 * pool, while the event loop goes on:
 *
 * - an HTTP request that committed is answered only once its commits are on disk
 *   (`flushed()`, awaited by the API before it sends the answer), so what the API acknowledged
 *   survives a power cut, as before;
 * - a commit made outside a request (an impedance session's reading, a schedule) is on disk
 *   within {@link BACKGROUND_SYNC_MS}.
 *
 * One fdatasync covers every commit made before it started, so a burst of commits costs one.
 */
import { closeSync, fdatasync, fstatSync, openSync, statSync } from 'node:fs';

/** How soon a commit made outside a request is flushed to the disk, ms. */
export const BACKGROUND_SYNC_MS = 100;

export class StoreDurability {
  private fd: number | undefined;
  /** Commits counted so far, and how many of them are known to be on disk. */
  private committed = 0;
  private synced = 0;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** `walPath`: the database's write-ahead log (`<file>-wal`), which holds every commit. */
  constructor(private readonly walPath: string) {}

  /** Counts a commit (every write goes through `storeWrite`, which calls this). */
  committedOne(): void {
    this.committed++;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      // A failure is answered to the next request that waits for the disk; nothing to tell here.
      this.flushed().catch(() => undefined);
    }, BACKGROUND_SYNC_MS).unref();
  }

  /** Undefined when every commit is on disk; else resolves once those made so far are. */
  pending(): Promise<void> | undefined {
    return this.synced >= this.committed ? undefined : this.flushed();
  }

  /** Resolves once every commit made so far is on disk. */
  async flushed(): Promise<void> {
    const target = this.committed;
    while (this.synced < target) {
      this.running ??= this.syncOnce().finally(() => {
        this.running = undefined;
      });
      await this.running;
    }
  }

  /** Stops the background flush and closes the log's descriptor (after the database closed). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private async syncOnce(): Promise<void> {
    const upTo = this.committed;
    let fd: number;
    try {
      fd = this.logDescriptor();
    } catch (error) {
      // No log: whoever removed it (the last connection closing) checkpointed it into the
      // database file and synced that first; nothing of ours is left in a log to flush.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.synced = Math.max(this.synced, upTo);
      return;
    }
    await new Promise<void>((resolve, reject) => {
      fdatasync(fd, (error) => {
        if (error === null) resolve();
        else reject(error);
      });
    });
    this.synced = Math.max(this.synced, upTo);
  }

  /** A descriptor of the log file as it is now (SQLite keeps it while the database is open). */
  private logDescriptor(): number {
    if (this.fd !== undefined && fstatSync(this.fd).ino === statSync(this.walPath).ino) return this.fd;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = openSync(this.walPath, 'r');
    return this.fd;
  }
}

const durabilities = new WeakMap<object, StoreDurability>();

export function setDurability(db: object, durability: StoreDurability): void {
  durabilities.set(db, durability);
}

export function durabilityOf(db: object): StoreDurability | undefined {
  return durabilities.get(db);
}
