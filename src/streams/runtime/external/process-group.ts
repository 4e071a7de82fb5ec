/**
 * Process groups of external nodes. Each child is spawned `detached`, so it leads a group of its
 * own (pgid = its pid) and everything it spawns stays in that group: signalling `-pgid` reaches
 * grandchildren that the child forgot, which is how no orphan survives a node.
 */
import { readdirSync } from 'node:fs';
import { procStat } from './proc-stat.js';

/** Sends `signal` to every process of group `pgid`. False when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

let procAvailable: boolean | undefined;

/**
 * Pids of the group's living members. Zombies do not count: a killed grandchild whose parent is
 * gone waits for init to reap it, and init in a container may never do so. Where /proc is missing
 * (macOS) the group counts as living while `kill(-pgid, 0)` succeeds, and the pid list is empty.
 */
export function groupAlive(pgid: number): boolean {
  procAvailable ??= (() => {
    try {
      readdirSync('/proc/self');
      return true;
    } catch {
      return false;
    }
  })();
  if (!procAvailable) return signalGroup(pgid, 0 as unknown as NodeJS.Signals);
  if (!signalGroup(pgid, 0 as unknown as NodeJS.Signals)) return false;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(entry);
    if (stat !== undefined && stat.pgid === pgid && stat.state !== 'Z' && stat.state !== 'X') return true;
  }
  return false;
}

/** Resolves true once the group has no living member, false when `timeoutMs` passed first. */
export async function waitForGroupGone(pgid: number, timeoutMs: number, pollMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/**
 * Groups still running, as this thread knows them: a stream's worker tracks the groups of its
 * nodes, and the main thread those every worker reported (stream-worker.ts). If the thread or the
 * service exits without stopping them (a crash, `worker.terminate()`, `process.exit()` at the end
 * of the shutdown budget), the exit hook kills them: the last line of defence after the children's
 * own rule of exiting when stdin reaches EOF.
 */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killAllOnExit(): void {
  for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  liveGroups.clear();
}

export function trackGroup(pgid: number): void {
  if (!exitHookInstalled) {
    process.once('exit', killAllOnExit);
    exitHookInstalled = true;
  }
  liveGroups.add(pgid);
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}
