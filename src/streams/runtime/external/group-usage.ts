/**
 * What the processes of one group use now, read from /proc (Linux): the resident memory of every
 * living member summed, and the CPU time of the group (each member's user and system time, plus
 * that of the children it has waited for, so a short-lived helper's CPU stays counted once it has
 * exited and been reaped).
 */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Clock ticks per second of /proc's times. Linux exports these fields in USER_HZ, which is 100 on
 * every architecture it supports (the value `getconf CLK_TCK` prints), whatever the kernel's HZ.
 */
const USER_HZ = 100;

export interface GroupUsage {
  /** Resident memory (VmRSS) of the living members, bytes. */
  readonly rssBytes: number;
  /** User + system CPU time of the members and their reaped children, seconds. */
  readonly cpuSeconds: number;
  /** How many living members were counted. */
  readonly processes: number;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The usage of group `pgid`, or undefined where /proc cannot be read. */
export function groupUsage(pgid: number): GroupUsage | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  let rssBytes = 0;
  let ticks = 0;
  let processes = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readText(`/proc/${entry}/stat`);
    if (stat === undefined) continue;
    // The comm field may hold spaces and parentheses: the fields proper start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields from 3 (state) on, so index = field number - 3: pgrp 5, utime 14 .. cstime 17.
    if (Number(fields[2]) !== pgid) continue;
    const state = fields[0];
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    if (state === 'Z' || state === 'X') continue;
    processes += 1;
    const status = readText(`/proc/${entry}/status`);
    const rss = status === undefined ? undefined : /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
    if (rss !== undefined) rssBytes += Number(rss) * 1024;
  }
  return { rssBytes, cpuSeconds: ticks / USER_HZ, processes };
}
