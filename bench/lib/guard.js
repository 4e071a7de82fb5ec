/**
 * The regression guard of `npm run bench -- --quick` (run by .ci/run): each ratio is compared with
 * its committed value (bench/results/quick-baseline.json) and fails when it got more than
 * `TOLERANCE` worse, in the direction its threshold says is worse (higher for `≤` thresholds, lower
 * for `≥`). Only ratios are compared, never times: both sides of a ratio ran in the same process.
 * The committed value is the worst of several processes' runs (`--write-baseline --runs N`): a
 * ratio of one build moves between processes by up to half its value (bimodal for some), so the
 * median would be crossed by a healthy build's unlucky processes; and bench/run.js calls a ratio
 * regressed only when it is worse in three processes.
 * One baseline serves every processor CI has run on: ratios of unlike work move with the
 * processor's design (the EDF writer read 0.56–0.67 of its anchor on an Intel Xeon VM, 0.82–0.95 on
 * an AMD EPYC VM, same build, both quiet). Each processor's runs are kept under its name, and the
 * committed ratio is the worst over them; writing a baseline replaces the runs of this processor only.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export const TOLERANCE = 0.3;

/**
 * This processor's entries from runs (each a list of results, from separate processes): id →
 * { ratio: the worst of the runs, better: 'lower' | 'higher', runs: each run's ratio }.
 */
export function baselineOf(runs) {
  const entries = {};
  for (const r of runs[0]) {
    if (r.advisory || !Number.isFinite(r.ratio)) continue;
    const ratios = runs.map((run) => run.find((o) => o.id === r.id)?.ratio).filter(Number.isFinite);
    const better = r.threshold.startsWith('≥') ? 'higher' : 'lower';
    entries[r.id] = { ratio: Number(worstOf(ratios, better).toPrecision(3)), better, runs: ratios };
  }
  return entries;
}

function worstOf(ratios, better) {
  return better === 'higher' ? Math.min(...ratios) : Math.max(...ratios);
}

/**
 * Writes this processor's runs into the baseline `file`, beside those of the other processors it
 * holds: `machines` (cpu → the machine and date of its runs) and `ratios` (id → { ratio: the worst
 * over the processors, better, byCpu: cpu → { ratio, runs } }).
 */
export function writeBaseline(file, runs, machine) {
  const before = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { machines: {}, ratios: {} };
  const machines = { ...before.machines, [machine.cpu]: { ...machine, date: new Date().toISOString() } };
  const mine = baselineOf(runs);
  const ratios = {};
  for (const [id, entry] of Object.entries(mine)) {
    const byCpu = {};
    for (const [cpu, other] of Object.entries(before.ratios[id]?.byCpu ?? {})) {
      if (cpu !== machine.cpu) byCpu[cpu] = other;
    }
    byCpu[machine.cpu] = { ratio: entry.ratio, runs: entry.runs };
    const worst = worstOf(
      Object.values(byCpu).map((b) => b.ratio),
      entry.better,
    );
    ratios[id] = { ratio: worst, better: entry.better, byCpu };
  }
  const report = { machines, tolerance: TOLERANCE, ratios };
  // Each run's ratios on one line, as the repository's formatter (biome) writes a short array.
  const text = JSON.stringify(report, null, 2).replace(
    /\[\s+([-+\d.e,\s]+?)\s+\]/g,
    (_, inner) => `[${inner.split(/,\s*/).join(', ')}]`,
  );
  writeFileSync(file, `${text}\n`);
}

/** The processors whose runs the baseline in `file` holds. */
export function baselineCpus(file) {
  return Object.keys(JSON.parse(readFileSync(file, 'utf8')).machines);
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
