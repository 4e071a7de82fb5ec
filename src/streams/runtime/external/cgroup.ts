/**
 * Containment of the service's child processes in a control group, where the platform allows.
 *
 * Process groups (process-group.ts) reach everything a node starts, except a process that leaves
 * the group with setsid() (a daemon, `setsid prog &`): SIGKILL to the group misses it, and it would
 * outlive the service with ppid 1. A cgroup cannot be left that way. At start the service moves
 * itself into a cgroup v2 of its own, `<its cgroup>/headsetd-<pid>`; every process it spawns, and
 * theirs, is born there. At shutdown, once the streams are stopped, every member but the service
 * itself is killed.
 *
 * Not available (the service runs on, with process groups only) where there is no cgroup v2
 * hierarchy (macOS, cgroup v1-only systems) or its cgroup is not writable (an unprivileged user
 * without delegation), and not attempted under systemd (INVOCATION_ID set): the unit's own cgroup
 * already holds every child, and systemd kills them all when the unit stops.
 */
import { readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface ChildContainment {
  /** The cgroup's directory. */
  readonly dir: string;
  /** SIGKILL to every member but the service; answers how many were killed. Synchronous. */
  killOthers(): number;
  /** Moves the service back to the cgroup it came from and removes the one it made, if empty. */
  release(): void;
}

/** Where the cgroup v2 hierarchy is mounted, from /proc/self/mountinfo. */
function cgroup2Mount(): string | undefined {
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    // Optional fields end with ' - '; then fstype, source, options.
    const [before, after] = line.split(' - ');
    if (after?.split(' ')[0] === 'cgroup2') return before?.split(' ')[4];
  }
  return undefined;
}

/** This process's cgroup v2 path (the `0::` line of /proc/self/cgroup). */
function ownCgroup(): string | undefined {
  const line = readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('0::'));
  return line?.slice(3);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function members(dir: string): number[] {
  return readFileSync(path.join(dir, 'cgroup.procs'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map(Number);
}

/** Removes the cgroups that services killed with `kill -9` left behind (rmdir fails unless empty). */
async function sweepStale(parent: string): Promise<void> {
  for (const name of await readdir(parent)) {
    const pid = /^headsetd-(\d+)$/.exec(name)?.[1];
    if (pid === undefined || processAlive(Number(pid))) continue;
    try {
      await rmdir(path.join(parent, name));
    } catch {
      // Members are left (programs that outlived a killed service): not ours to end.
    }
  }
}

/**
 * Moves the service into a cgroup of its own; undefined where that is not possible (see above).
 * Asynchronous: the kernel takes 8–20 ms to move a process between cgroups, which the service's
 * start spends on its own work meanwhile (the caller awaits it before any child can be spawned).
 */
export async function containChildren(): Promise<ChildContainment | undefined> {
  if (process.platform !== 'linux' || process.env.INVOCATION_ID !== undefined) return undefined;
  let parent: string;
  try {
    const mount = cgroup2Mount();
    const own = ownCgroup();
    if (mount === undefined || own === undefined) return undefined;
    parent = path.join(mount, own);
    await sweepStale(parent);
  } catch {
    return undefined;
  }
  const dir = path.join(parent, `headsetd-${process.pid}`);
  try {
    await mkdir(dir);
    await writeFile(path.join(dir, 'cgroup.procs'), String(process.pid));
  } catch {
    try {
      await rmdir(dir);
    } catch {
      // never made
    }
    return undefined;
  }
  return {
    dir,
    killOthers() {
      const killed = new Set<number>();
      // A member may fork while we kill: read again until only the service is left (bounded).
      for (let round = 0; round < 20; round++) {
        let others: number[];
        try {
          others = members(dir).filter((pid) => pid !== process.pid);
        } catch {
          break; // the cgroup is gone
        }
        if (others.length === 0) break;
        for (const pid of others) {
          try {
            process.kill(pid, 'SIGKILL');
            killed.add(pid);
          } catch {
            // already gone
          }
        }
      }
      return killed.size;
    },
    release() {
      try {
        writeFileSync(path.join(parent, 'cgroup.procs'), String(process.pid));
        rmdirSync(dir);
      } catch {
        // Members remain, or the parent takes no processes: the next start's sweep removes it.
      }
    },
  };
}
