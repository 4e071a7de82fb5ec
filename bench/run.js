/* global console */
/**
 * headsetd benchmarks: `npm run bench` (builds, then runs this file).
 *
 * Usage: node bench/run.js [--check] [--quick]
 *                          [--only dsp,runtime,codecs,formats,api,service,latency,external,startup,apistatus,storesoak,cpu,wakeups]
 *                          [--json FILE] [--write-baseline]
 *   --check   exit 1 when a benchmark misses its threshold (default: report only, exit 0);
 *             advisory benchmarks (contention-sensitive, see docs/performance.md) never fail it
 *   --quick   the in-process suites only (dsp, runtime, codecs, formats: about 20 s), checked
 *             against the committed ratios of bench/results/quick-baseline.json (lib/guard.js):
 *             exit 1 when one got more than 30 % worse in two runs in a row (CI runs this)
 *   --write-baseline  with --quick: write this run's ratios as the new committed baseline
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
import { writeFileSync } from 'node:fs';
import { machineInfo } from './lib/machine.js';
import { formatLine, formatTable } from './lib/report.js';
import { regressions, TOLERANCE, writeBaseline } from './lib/guard.js';
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
    else if (arg === '--only') args.only = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (arg.startsWith('--only=')) args.only = arg.slice(7).split(',').filter(Boolean);
    else if (arg === '--json') args.json = argv[++i];
    else if (arg.startsWith('--json=')) args.json = arg.slice(7);
    else throw new Error(`unknown argument ${arg} (see the header of bench/run.js)`);
  }
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

/** `--quick`: compare with the committed ratios, or write them (`--write-baseline`). */
async function guard(args, results, machine) {
  if (args.writeBaseline) {
    writeBaseline(QUICK_BASELINE, results, machine);
    console.log(`baseline written to ${QUICK_BASELINE}`);
    return;
  }
  let found = regressions(QUICK_BASELINE, results);
  if (found.length > 0) {
    // A ratio can be unlucky once on a shared machine; a regression shows in a second run too.
    console.log(`\nworse than committed:\n  ${found.join('\n  ')}\nrunning those suites again`);
    const ids = new Set(found.map((line) => line.slice(0, line.indexOf(':'))));
    const suites = [...new Set(results.filter((r) => ids.has(r.id)).map((r) => r.suite))];
    const again = await runSuites(suites);
    found = regressions(QUICK_BASELINE, again).filter((line) => ids.has(line.slice(0, line.indexOf(':'))));
  }
  if (found.length === 0) {
    console.log(
      `\nregression guard: every ratio within ${TOLERANCE * 100} % of bench/results/quick-baseline.json`,
    );
    return;
  }
  console.log(`\nregression guard: worse than committed in two runs:\n  ${found.join('\n  ')}`);
  process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 2;
});
