/**
 * The regression guard of `npm run bench -- --quick` (run by .ci/run): each ratio is compared with
 * its committed value (bench/results/quick-baseline.json) and fails when it got more than
 * `TOLERANCE` worse, in the direction its threshold says is worse (higher for `≤` thresholds, lower
 * for `≥`). Only ratios are compared, never times: both sides of a ratio ran in the same process.
 * The committed value is the worst of several processes' runs (`--write-baseline --runs N`): a
 * ratio of one build moves between processes by up to half its value (bimodal for some), so the
 * median would be crossed by a healthy build's unlucky processes; and bench/run.js calls a ratio
 * regressed only when it is worse in three processes.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export const TOLERANCE = 0.3;

/**
 * The baseline written from runs (each a list of results, from separate processes): id →
 * { ratio: the worst of the runs, better: 'lower' | 'higher', runs: each run's ratio }.
 */
export function baselineOf(runs) {
  const entries = {};
  for (const r of runs[0]) {
    if (r.advisory || !Number.isFinite(r.ratio)) continue;
    const ratios = runs.map((run) => run.find((o) => o.id === r.id)?.ratio).filter(Number.isFinite);
    const better = r.threshold.startsWith('≥') ? 'higher' : 'lower';
    const worst = better === 'higher' ? Math.min(...ratios) : Math.max(...ratios);
    entries[r.id] = { ratio: Number(worst.toPrecision(3)), better, runs: ratios };
  }
  return entries;
}

export function writeBaseline(file, runs, machine) {
  const report = {
    machine,
    date: new Date().toISOString(),
    tolerance: TOLERANCE,
    ratios: baselineOf(runs),
  };
  // Each run's ratios on one line, as the repository's formatter (biome) writes a short array.
  const text = JSON.stringify(report, null, 2).replace(
    /\[\s+([-+\d.e,\s]+?)\s+\]/g,
    (_, inner) => `[${inner.split(/,\s*/).join(', ')}]`,
  );
  writeFileSync(file, `${text}\n`);
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
