/**
 * The regression guard of `npm run bench -- --quick` (run by .ci/run): each ratio is compared with
 * its committed value (bench/results/quick-baseline.json) and fails when it got more than
 * `TOLERANCE` worse, in the direction its threshold says is worse (higher for `≤` thresholds, lower
 * for `≥`). Only ratios are compared, never times: both sides of a ratio ran in the same process.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export const TOLERANCE = 0.3;

/** The baseline written from a run: id → { ratio, better: 'lower' | 'higher' }. */
export function baselineOf(results) {
  const entries = {};
  for (const r of results) {
    if (r.advisory || !Number.isFinite(r.ratio)) continue;
    entries[r.id] = { ratio: r.ratio, better: r.threshold.startsWith('≥') ? 'higher' : 'lower' };
  }
  return entries;
}

export function writeBaseline(file, results, machine) {
  const report = {
    machine,
    date: new Date().toISOString(),
    tolerance: TOLERANCE,
    ratios: baselineOf(results),
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}

/** The regressions of `results` against the baseline in `file`, one sentence each. */
export function regressions(file, results) {
  const { ratios } = JSON.parse(readFileSync(file, 'utf8'));
  const found = [];
  for (const r of results) {
    const base = ratios[r.id];
    if (base === undefined || r.advisory) continue;
    const worse =
      base.better === 'lower'
        ? r.ratio > base.ratio * (1 + TOLERANCE)
        : r.ratio < base.ratio * (1 - TOLERANCE);
    if (worse || !Number.isFinite(r.ratio)) {
      found.push(
        `${r.id}: ratio ${r.ratio}, committed ${base.ratio} (${base.better} is better, ±${TOLERANCE * 100} % allowed)`,
      );
    }
  }
  return found;
}
