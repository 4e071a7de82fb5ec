/**
 * Metric helpers of the runtime: the clock frames are stamped with, and the per-pipe latency
 * window (time from a frame's creation at its source to its handling by the pipe's consumer).
 */
import { wallNowMs } from '../../core/wall-clock.js';

/**
 * The clock of `Frame.createdAt`: the service's one wall clock (monotonic, in ms, one offset for
 * every thread of the process), so a latency measured in one thread from a stamp made in another
 * holds no thread's error of its own.
 */
export const frameClock: () => number = wallNowMs;

/** Latency percentiles are computed over this window: the last 10 s (docs/api.md §Paths and shapes). */
export const LATENCY_WINDOW_MS = 10_000;
/** At most this many observations are kept per pipe; at higher frame rates the window is shorter. */
export const LATENCY_MAX_SAMPLES = 8192;

export interface LatencySummary {
  p50: number;
  p99: number;
}

/** Nearest-rank percentile of sorted values (`p` in 0..1). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/**
 * The `k`-th smallest (0-based) of `values[0..count)`, reordering them in place (Hoare's
 * selection: linear on average, where sorting the window for two ranks was n log n at every
 * status snapshot).
 */
export function selectRank(values: Float64Array, count: number, k: number): number {
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >>> 1] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((values[i] as number) < pivot) i++;
      while ((values[j] as number) > pivot) j--;
      if (i <= j) {
        const t = values[i] as number;
        values[i] = values[j] as number;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return values[k] as number;
  }
  return values[k] as number;
}

/** A ring of (time, latency) observations; summaries look at the last {@link LATENCY_WINDOW_MS}. */
export class LatencyWindow {
  private readonly times = new Float64Array(LATENCY_MAX_SAMPLES);
  private readonly values = new Float64Array(LATENCY_MAX_SAMPLES);
  /** Where a summary gathers the window's values (reused: a snapshot allocates nothing here). */
  private readonly scratch = new Float64Array(LATENCY_MAX_SAMPLES);
  private next = 0;
  private count = 0;

  record(now: number, latencyMs: number): void {
    this.times[this.next] = now;
    this.values[this.next] = latencyMs;
    this.next = (this.next + 1) % LATENCY_MAX_SAMPLES;
    if (this.count < LATENCY_MAX_SAMPLES) this.count++;
  }

  /** p50 and p99 in ms (rounded to µs), or undefined when nothing was handled in the window. */
  summary(now: number): LatencySummary | undefined {
    const recent = this.scratch;
    let n = 0;
    for (let i = 0; i < this.count; i++) {
      if (now - (this.times[i] ?? 0) <= LATENCY_WINDOW_MS) recent[n++] = this.values[i] ?? 0;
    }
    if (n === 0) return undefined;
    // The nearest ranks of `percentile`, found without sorting.
    const rank = (p: number) => Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1));
    const round = (v: number) => Math.round(v * 1000) / 1000;
    return { p50: round(selectRank(recent, n, rank(0.5))), p99: round(selectRank(recent, n, rank(0.99))) };
  }

  clear(): void {
    this.next = 0;
    this.count = 0;
  }
}
