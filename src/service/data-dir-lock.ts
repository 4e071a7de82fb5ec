/**
 * One service per data directory. Two services on one store would both restore its streams: two
 * acquisitions of the headset, two copies of every external program. `<data-dir>/headsetd.lock`
 * holds the owner's pid and the start time of that process; it is created exclusively (link(2) of
 * a complete file, so no reader ever sees it half written) and removed at a clean stop.
 *
 * A lock whose owner is gone (`kill -9`, a power cut) is stale and taken over. The owner counts as
 * gone when no process has its pid, when that process is a zombie, or when the process with that
 * pid started at another time than the owner did (the pid was reused), where /proc tells.
 */
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { procStat } from '../streams/runtime/external/proc-stat.js';

export const LOCK_FILE = 'headsetd.lock';

interface Owner {
  pid: number;
  /** Start time of the process in clock ticks since boot (/proc/<pid>/stat field 22); null where unknown. */
  startTime: number | null;
}

/** The data directory is held by a living service. */
// eslint-disable-next-line no-restricted-syntax -- thrown at start-up before the port opens: the command line prints it and exits; no client ever sees it.
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number,
  ) {
    super(
      `the data directory ${dataDir} is in use by another headsetd (pid ${ownerPid}); stop that one first, or choose another directory with --data-dir`,
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  readonly file: string;
  /** Removes the lock if it is still this process's. Synchronous, so it can run in an exit hook. */
  release(): void;
}

function describe(owner: Owner): string {
  return `${owner.pid} ${owner.startTime ?? '-'}\n`;
}

function parse(text: string): Owner | undefined {
  const [pid, start] = text.trim().split(/\s+/);
  if (pid === undefined || !/^\d+$/.test(pid)) return undefined;
  return { pid: Number(pid), startTime: start !== undefined && /^\d+$/.test(start) ? Number(start) : null };
}

function isAlive(owner: Owner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: a process of another user has the pid; it is alive.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(owner.pid);
  if (stat === undefined) return true; // no /proc (macOS): the pid's existence is all we know
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return owner.startTime === null || stat.startTime === owner.startTime;
}

/** The lock file's text; undefined when there is none. */
function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Creates `file` holding `content` only if it does not exist. False when it does. */
function createExclusive(file: string, content: string): boolean {
  const draft = `${file}.${process.pid}.new`;
  writeFileSync(draft, content);
  try {
    linkSync(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(draft);
  }
}

/**
 * Moves a stale lock out of the way. Renaming (rather than unlinking) makes the takeover safe when
 * two services find the same stale lock: if another one has replaced it with its own meanwhile,
 * what was moved is not the stale content, and it is put back.
 */
function removeStale(file: string, stale: string): void {
  const aside = `${file}.${process.pid}.stale`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = readFileSync(aside, 'utf8');
  if (moved !== stale) {
    try {
      linkSync(aside, file);
    } catch {
      // A third service holds it now; it decides.
    }
  }
  unlinkSync(aside);
}

/**
 * Takes the data directory for this process, or throws DataDirLockedError naming the owner's pid.
 * Call it before the store is opened.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const mine = describe({ pid: process.pid, startTime: procStat(process.pid)?.startTime ?? null });
  for (let attempt = 0; attempt < 10; attempt++) {
    if (createExclusive(file, mine)) {
      return {
        file,
        release() {
          try {
            if (readFileSync(file, 'utf8') === mine) unlinkSync(file);
          } catch {
            // already gone
          }
        },
      };
    }
    const text = readText(file);
    if (text === undefined) continue; // released between our attempt and the read
    const owner = parse(text);
    if (owner !== undefined && isAlive(owner)) throw new DataDirLockedError(dataDir, owner.pid);
    // A lock naming no living owner, or no pid at all (it is always written whole), is stale.
    removeStale(file, text);
  }
  throw new Error(`could not take the lock ${file}: it keeps changing; is another headsetd starting?`);
}
