/**
 * `npm run fuzz [-- --long] [--seed N] [--runs N]`: the OpenAPI fuzz of test/api/openapi-fuzz.test.ts
 * with more requests than the test suite sends. The suite sends 1500 generated requests and 60
 * transport faults with a random seed; `--long` sends 50 000 and 2 000 (about a minute on two
 * cores), for the benchmark run and before a release. Every failure prints its seed and request;
 * `--seed N` replays that run exactly.
 */
import { spawnSync } from 'node:child_process';
import { argv, env, execPath, exit, stdout } from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const args = argv.slice(2);
const valueOf = (flag) => {
  const at = args.indexOf(flag);
  return at < 0 ? undefined : args[at + 1];
};
const long = args.includes('--long');
const runs = valueOf('--runs') ?? (long ? '50000' : '1500');
const socketRuns = long ? '2000' : String(Math.max(60, Math.round(Number(runs) / 25)));
const seed = valueOf('--seed') ?? String(Math.floor(Math.random() * 2 ** 31));

stdout.write(`fuzz: seed ${seed}, ${runs} requests, ${socketRuns} transport faults\n`);
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const result = spawnSync(execPath, [vitest, 'run', 'test/api/openapi-fuzz.test.ts'], {
  cwd: fileURLToPath(new URL('..', import.meta.url)),
  stdio: 'inherit',
  env: { ...env, FUZZ_SEED: seed, FUZZ_RUNS: runs, FUZZ_SOCKET_RUNS: socketRuns },
});
exit(result.status ?? 1);
