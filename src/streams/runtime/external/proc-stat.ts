import { readFileSync } from 'node:fs';

/** The few fields of /proc/<pid>/stat that headsetd reads (Linux; undefined elsewhere or when gone). */
export interface ProcStat {
  /** One letter: R running, S sleeping, Z zombie, ... */
  readonly state: string;
  readonly pgid: number;
  /** Start time in clock ticks after boot: with the pid, it names one process for good. */
  readonly startTime: number;
}

export function procStat(pid: number | string): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // The comm field may hold spaces and parentheses: the fields proper start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', pgid: Number(fields[2]), startTime: Number(fields[19]) };
  } catch {
    return undefined;
  }
}
