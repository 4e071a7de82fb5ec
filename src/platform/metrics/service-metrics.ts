/**
 * Figures of the service's own process, for GET /system/healthz: resident memory, heap, open file
 * descriptors, child processes (the user executables' processes and theirs) and the event loop's
 * delay. They are what a long run watches for leaks (scripts/soak.mjs) and what an operator looks
 * at when the API feels slow.
 *
 * The event loop delay monitor samples with a timer; a service nobody asks about should not wake
 * up for it, so the monitor starts at the first health call (that call reads null) and stops
 * when no call has come for a minute.
 *
 * The monitor is a timer of its own recording into a histogram, not `monitorEventLoopDelay`: on
 * Node 20 that histogram's `reset()` also forgets its last tick, so the interval after each
 * health call was dropped, and a block of the event loop just after a call never showed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';

/** The monitor stops when no health call has come for this long. */
const IDLE_STOP_MS = 60_000;
/** Sampling resolution of the event loop delay, ms. */
const RESOLUTION_MS = 10;

export interface EventLoopDelay {
  /** Milliseconds, since the previous health call. */
  p50: number;
  p99: number;
  max: number;
}

export interface ServiceFigures {
  /** Bytes of resident memory of the service's process (its threads included, children not). */
  rss: number;
  /** Bytes of the main thread's JavaScript heap in use. */
  heapUsed: number;
  /** Open file descriptors of the process; null where /proc is not there to count them. */
  openFiles: number | null;
  /** Processes descending from the service (external nodes and what they start); null without /proc. */
  childProcesses: number | null;
  /** Null on the first call, while the monitor has nothing to report yet. */
  eventLoopDelayMs: EventLoopDelay | null;
}

function countEntries(dir: string): number | null {
  try {
    return readdirSync(dir).length;
  } catch {
    return null;
  }
}

/** Processes whose parent chain leads to `pid`, read from /proc/<n>/stat. */
export function descendantCount(pid: number, procRoot = '/proc'): number | null {
  let entries: string[];
  try {
    entries = readdirSync(procRoot);
  } catch {
    return null;
  }
  const parentOf = new Map<number, number>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`${procRoot}/${entry}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces: fields resume after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parentOf.set(Number(entry), Number(fields[1]));
    } catch {
      // The process ended while we read.
    }
  }
  let count = 0;
  for (const start of parentOf.keys()) {
    let at = parentOf.get(start);
    for (let depth = 0; at !== undefined && at > 1 && depth < 64; depth += 1) {
      if (at === pid) {
        count += 1;
        break;
      }
      at = parentOf.get(at);
    }
  }
  return count;
}

function ms(nanoseconds: number): number {
  return Math.round(nanoseconds / 1e4) / 100;
}

/** Intervals between the monitor's ticks (ns), its period included. */
interface DelayMonitor {
  histogram: RecordableHistogram;
  timer: NodeJS.Timeout;
}

function startMonitor(): DelayMonitor {
  const histogram = createHistogram();
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    histogram.record(Math.max(1, Math.round((now - last) * 1e6)));
    last = now;
  }, RESOLUTION_MS);
  timer.unref();
  return { histogram, timer };
}

export class ServiceMetrics {
  private monitor: DelayMonitor | undefined;
  private idleStop: NodeJS.Timeout | undefined;

  sample(): ServiceFigures {
    const memory = process.memoryUsage();
    const delay = this.readDelay();
    return {
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      openFiles: countEntries('/proc/self/fd'),
      childProcesses: descendantCount(process.pid),
      eventLoopDelayMs: delay,
    };
  }

  close(): void {
    clearTimeout(this.idleStop);
    clearInterval(this.monitor?.timer);
    this.monitor = undefined;
  }

  private readDelay(): EventLoopDelay | null {
    clearTimeout(this.idleStop);
    this.idleStop = setTimeout(() => {
      this.close();
    }, IDLE_STOP_MS);
    this.idleStop.unref();
    if (this.monitor === undefined) {
      this.monitor = startMonitor();
      return null;
    }
    const { histogram } = this.monitor;
    // Each interval holds the timer's period: the delay is what exceeds it.
    const period = RESOLUTION_MS * 1e6;
    const figures =
      histogram.count === 0
        ? { p50: 0, p99: 0, max: 0 }
        : {
            p50: ms(Math.max(0, histogram.percentile(50) - period)),
            p99: ms(Math.max(0, histogram.percentile(99) - period)),
            max: ms(Math.max(0, histogram.max - period)),
          };
    histogram.reset();
    return figures;
  }
}
