/* global console */
/**
 * headsetd benchmarks: `npm run bench` (builds, then runs this file).
 *
 * Usage: node bench/run.js [--check] [--quick] [--write-baseline [--runs N]]
 *                          [--only dsp,runtime,codecs,formats,api,service,latency,external,startup,apistatus,storesoak,cpu,wakeups]
 *                          [--json FILE]
 *   --check   exit 1 when a benchmark misses its threshold (default: report only, exit 0);
 *             advisory benchmarks (contention-sensitive, see docs/performance.md) never fail it
 *   --quick   the in-process suites only (dsp, runtime, codecs, formats: about 20 s), checked
 *             against the committed ratios of bench/results/quick-baseline.json (lib/guard.js):
 *             exit 1 when one got more than 30 % worse in this run and in two more, each in a
 *             fresh process (CI runs this)
 *   --write-baseline  with --quick: write the committed baseline, each ratio the worst of
 *             --runs N processes (default 5: this one and N − 1 fresh ones)
 *   --only    run only the named suites
 *   --json    write the results (with machine, date, node version) to FILE
 *
 * Every benchmark reports a ratio to a reference measured in the same run (the team rule: no
 * wall-clock assertions, ratios only), absolute numbers for context, and pass/fail against the
 * threshold documented in docs/performance.md. Everything is bounded in time and iterations; the
 * API suite starts the real service on 127.0.0.1 with a free port and stops it.
 */
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { URL } from 'node:url';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { machineInfo } from './lib/machine.js';
import { formatLine, formatTable } from './lib/report.js';
import { baselineCpus, regressions, TOLERANCE, writeBaseline } from './lib/guard.js';
import { runApi } from './suites/api.js';
import { runCodecs } from './suites/codecs.js';
import { runDsp } from './suites/dsp.js';
import { runFormats } from './suites/formats.js';
import { runRuntime } from './suites/runtime.js';
import { runService } from './suites/service.js';
import { runLatency } from './suites/latency.js';
import { runExternal } from './suites/external.js';
import { runStartup } from './suites/startup.js';
import { runApiStatus } from './suites/api-status.js';
import { runStoreSoak } from './suites/store-soak.js';
import { runCpu } from './suites/cpu.js';
import { runWakeups } from './suites/wakeups.js';

const SUITES = {
  dsp: runDsp,
  runtime: runRuntime,
  codecs: runCodecs,
  formats: runFormats,
  api: runApi,
  service: runService,
  latency: runLatency,
  external: runExternal,
  startup: runStartup,
  apistatus: runApiStatus,
  storesoak: runStoreSoak,
  cpu: runCpu,
  wakeups: runWakeups,
};

/** The suites of `--quick`: in-process, CPU-bound, seconds each. */
const QUICK_SUITES = ['dsp', 'runtime', 'codecs', 'formats'];
const QUICK_BASELINE = new URL('./results/quick-baseline.json', import.meta.url).pathname;

function parseArgs(argv) {
  const args = {
    check: false,
    quick: false,
    writeBaseline: false,
    runs: 5,
    only: Object.keys(SUITES),
    json: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--check') args.check = true;
    else if (arg === '--quick') {
      args.quick = true;
      args.only = QUICK_SUITES;
    } else if (arg === '--write-baseline') args.writeBaseline = true;
    else if (arg === '--runs') args.runs = Number(argv[++i]);
    else if (arg === '--only') args.only = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (arg.startsWith('--only=')) args.only = arg.slice(7).split(',').filter(Boolean);
    else if (arg === '--json') args.json = argv[++i];
    else if (arg.startsWith('--json=')) args.json = arg.slice(7);
    else throw new Error(`unknown argument ${arg} (see the header of bench/run.js)`);
  }
  if (!Number.isInteger(args.runs) || args.runs < 1) throw new Error('--runs takes a whole number ≥ 1');
  for (const name of args.only) {
    if (!(name in SUITES))
      throw new Error(`unknown suite ${name}; suites: ${Object.keys(SUITES).join(', ')}`);
  }
  return args;
}

/** The commit the run measured (dist/ is built from the working tree; `-dirty` when it differs). */
function gitCommit() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src'], {
      encoding: 'utf8',
    }).trim();
    return dirty === '' ? commit : `${commit}-dirty`;
  } catch {
    return 'unknown';
  }
}

/** Runs the named suites one after the other; a suite that throws is a failed result of its own. */
async function runSuites(names) {
  const results = [];
  for (const name of names) {
    console.log(`\n## ${name}`);
    const suiteStart = performance.now();
    try {
      const suiteResults = await SUITES[name]((r) => console.log(formatLine(r)));
      results.push(...suiteResults.map((r) => ({ suite: name, ...r })));
    } catch (error) {
      // A suite that cannot run (the service does not start, a file cannot be written) is a failed
      // result of its own; the other suites still run.
      console.error(error);
      results.push({
        suite: name,
        id: `${name}.error`,
        title: `suite ${name} did not complete: ${error instanceof Error ? error.message : String(error)}`,
        ratio: Number.NaN,
        ratioOf: 'n/a',
        threshold: 'completes',
        pass: false,
        advisory: false,
        absolute: {},
      });
    }
    console.log(`   (${((performance.now() - suiteStart) / 1000).toFixed(1)} s)`);
  }
  return results;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const machine = machineInfo();
  console.log(
    `headsetd benchmarks: ${machine.cpu} × ${machine.cores}, node ${machine.node}, load ${machine.loadAverage1m}`,
  );
  const started = performance.now();
  const results = await runSuites(args.only);
  const seconds = (performance.now() - started) / 1000;
  console.log(`\n${formatTable(results)}`);
  const failed = results.filter((r) => !r.pass);
  console.log(
    `\n${results.length - failed.length}/${results.length} within thresholds in ${seconds.toFixed(1)} s` +
      (failed.length > 0 ? `; missed: ${failed.map((r) => r.id).join(', ')}` : ''),
  );
  if (args.json !== undefined) {
    const report = {
      label: `headsetd benchmarks, ${new Date().toISOString().slice(0, 10)}, ${machine.cpu} × ${machine.cores}, node ${machine.node}`,
      date: new Date().toISOString(),
      commit: gitCommit(),
      ...machine,
      durationSeconds: Math.round(seconds),
      results,
    };
    writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`results written to ${args.json}`);
  }
  if (args.check && failed.some((r) => !r.advisory)) process.exitCode = 1;
  if (args.quick) await guard(args, results, machine);
}

/**
 * Runs the named suites in a fresh Node process (this file with `--only` and `--json`) and returns
 * its results. Why a fresh process: V8 can keep a hot function in a slower compiled form for the
 * whole life of a process (the simulated EEG's `fill` measured 2.5 or 8 times its anchor in
 * processes of the same build, docs/performance.md), so a second measurement in the same process
 * repeats the first one's luck rather than checking it.
 */
function runInFreshProcess(names) {
  const dir = mkdtempSync(path.join(tmpdir(), 'headsetd-bench-'));
  try {
    const file = path.join(dir, 'results.json');
    execFileSync(
      process.execPath,
      [new URL(import.meta.url).pathname, '--only', names.join(','), '--json', file],
      {
        stdio: 'inherit',
      },
    );
    return JSON.parse(readFileSync(file, 'utf8')).results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The ids a regression sentence of lib/guard.js names. */
function idsOf(found) {
  return new Set(found.map((line) => line.slice(0, line.indexOf(':'))));
}

/**
 * `--quick`: compare with the committed ratios, or write them (`--write-baseline`: the worst of
 * `--runs` processes, this one and fresh ones, so that a healthy build's unlucky process passes).
 */
async function guard(args, results, machine) {
  if (args.writeBaseline) {
    const runs = [results];
    for (let k = 1; k < args.runs; k++) {
      console.log(`\n# baseline run ${k + 1} of ${args.runs}, in a fresh process`);
      runs.push(runInFreshProcess(QUICK_SUITES));
    }
    writeBaseline(QUICK_BASELINE, runs, machine);
    console.log(`baseline (the worst of ${runs.length} processes) written to ${QUICK_BASELINE}`);
    return;
  }
  // Ratios of unlike work (JSON text against typed arrays, a model against its random draws) move
  // with the processor's design, not only with the code: say so when the baseline holds no runs of
  // this one (`--write-baseline` on it adds them).
  const cpus = baselineCpus(QUICK_BASELINE);
  if (!cpus.includes(machine.cpu)) {
    console.log(`\nnote: the baseline was measured on ${cpus.join(' and ')}, this run on ${machine.cpu}`);
  }
  let found = regressions(QUICK_BASELINE, results);
  // A ratio can be unlucky in one process on a shared machine; a regression of the code shows in
  // every process. So what was worse is measured again in two fresh processes, and fails only if
  // it is worse in all three.
  for (let k = 0; k < 2 && found.length > 0; k++) {
    const ids = idsOf(found);
    console.log(
      `\nworse than committed:\n  ${found.join('\n  ')}\nrunning those suites again in a fresh process`,
    );
    const suites = [...new Set(results.filter((r) => ids.has(r.id)).map((r) => r.suite))];
    found = regressions(QUICK_BASELINE, runInFreshProcess(suites)).filter((line) =>
      ids.has(idsOf([line]).values().next().value),
    );
  }
  if (found.length === 0) {
    console.log(
      `\nregression guard: every ratio within ${TOLERANCE * 100} % of bench/results/quick-baseline.json`,
    );
    return;
  }
  console.log(`\nregression guard: worse than committed in three processes:\n  ${found.join('\n  ')}`);
  process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 2;
});
