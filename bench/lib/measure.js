/**
 * Timing primitives of the benchmarks.
 *
 * Why CPU time: the benchmarks run on shared 2-core machines where other processes take the cores
 * (load averages of 8+ are normal while tests run). Wall time then measures mostly the wait for a
 * core; the process's CPU time (`process.cpuUsage()`, user + system) measures the work. Compute
 * benchmarks on the main thread therefore report CPU time; the HTTP benchmark (which measures what a
 * client sees) reports wall time.
 *
 * Why paired rounds: a subject and its reference run alternately, round after round, and the
 * reported ratio is the median of the per-round ratios. A burst of outside load then hits both sides
 * of a pair rather than skewing one median, and a single bad round cannot move the result.
 */

import { performance } from 'node:perf_hooks';
import process from 'node:process';

/** CPU time of this process in nanoseconds (user + system; µs resolution). */
export function cpuNs() {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

/** Median of numbers (the mean of the middle two for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile (`p` in 0..1) of an array of numbers. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[rank];
}

/** Keeps results alive so the optimiser cannot drop the work that made them. */
export const sink = { value: 0 };

/**
 * Finds an operation count whose run takes at least `minRoundMs` of CPU (doubling from 1, at most
 * `maxOps`). `op(n)` performs n operations; it may be async.
 */
export async function calibrate(op, minRoundMs, maxOps = 1 << 24) {
  let n = 1;
  for (;;) {
    const start = cpuNs();
    await op(n);
    const ms = (cpuNs() - start) / 1e6;
    if (ms >= minRoundMs || n >= maxOps) return n;
    n = Math.min(maxOps, ms <= 0 ? n * 8 : Math.max(n * 2, Math.ceil((n * minRoundMs * 1.2) / ms)));
  }
}

/** CPU ns per operation of one run of `op(n)`. */
async function roundNs(op, n) {
  const start = cpuNs();
  await op(n);
  return (cpuNs() - start) / n;
}

/**
 * Times `subject` against `reference` in alternating rounds (see the file header).
 * Each of `subject(n)` and `reference(n)` performs n operations (sync or async).
 * Stops after `rounds` pairs or once `maxMs` of wall time have passed (at least 3 pairs).
 * Returns CPU ns/op medians of both sides and `ratio`, the median of subject/reference per pair.
 */
export async function compare(subject, reference, options = {}) {
  const { rounds = 9, minRoundMs = 30, maxMs = 4000, maxOps } = options;
  const deadline = performance.now() + maxMs;
  const nSubject = await calibrate(subject, minRoundMs, maxOps);
  const nReference = await calibrate(reference, minRoundMs, maxOps);
  const subjectNs = [];
  const referenceNs = [];
  const ratios = [];
  for (let r = 0; r < rounds; r++) {
    // Alternate which side goes first, so neither always runs on a warmer cache.
    const first = r % 2 === 0;
    const ref = first ? await roundNs(reference, nReference) : 0;
    const sub = await roundNs(subject, nSubject);
    const refAfter = first ? ref : await roundNs(reference, nReference);
    subjectNs.push(sub);
    referenceNs.push(refAfter);
    ratios.push(sub / refAfter);
    if (r >= 2 && performance.now() > deadline) break;
  }
  return {
    subjectNs: median(subjectNs),
    referenceNs: median(referenceNs),
    ratio: median(ratios),
    rounds: ratios.length,
  };
}

/** CPU ns per operation of `op` alone: median over rounds (bounded like {@link compare}). */
export async function measure(op, options = {}) {
  const { rounds = 7, minRoundMs = 30, maxMs = 3000, maxOps } = options;
  const deadline = performance.now() + maxMs;
  const n = await calibrate(op, minRoundMs, maxOps);
  const values = [];
  for (let r = 0; r < rounds; r++) {
    values.push(await roundNs(op, n));
    if (r >= 2 && performance.now() > deadline) break;
  }
  return { ns: median(values), rounds: values.length };
}
