/**
 * The liblsl anchors of the benchmarks (bench/lib/lsl-anchor.c): the Lab Streaming Layer's own
 * library handing the same frames to readers on this machine, measured in the same run as
 * headsetd's figures. Which liblsl: the one `HEADSETD_LIBLSL` names (a path to its shared object),
 * else the one the LSL conformance tests keep in the machine's cache (test/support/liblsl.ts:
 * 1.16.2 built from its source when the tests were given it, else 1.12 from the npm package
 * lsl.js@1.1.2). Without either, the anchors are left out and the reason says how to get one.
 * The tool is compiled with the machine's C compiler into node_modules/.cache.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { URL } from 'node:url';

const SOURCE = new URL('./lsl-anchor.c', import.meta.url).pathname;
const TOOL_DIR = new URL('../../node_modules/.cache/headsetd-bench/', import.meta.url).pathname;
/** The tests' cache of liblsl builds (test/support/liblsl.ts's CACHE). */
const TEST_CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'headsetd-tests', 'liblsl');
const CANDIDATES = [
  ['1.16.2', join(TEST_CACHE, '1.16.2', 'build', 'liblsl.so')],
  ['1.12', join(TEST_CACHE, '1.12', 'package', 'prebuilt', 'liblsl64.so')],
];

/** `{ lib, version }` of the liblsl to measure, or `{ missing }` saying why there is none. */
export function liblslForBench() {
  const named = process.env.HEADSETD_LIBLSL;
  if (named !== undefined && named !== '') {
    return existsSync(named)
      ? { lib: named, version: 'HEADSETD_LIBLSL' }
      : { missing: `HEADSETD_LIBLSL names ${named}, which does not exist` };
  }
  for (const [version, lib] of CANDIDATES) if (existsSync(lib)) return { lib, version };
  return {
    missing:
      'no liblsl on this machine: run the LSL tests once (npm test builds or fetches it into ' +
      `${TEST_CACHE}) or set HEADSETD_LIBLSL to a liblsl shared object`,
  };
}

function tool() {
  mkdirSync(TOOL_DIR, { recursive: true });
  const binary = join(TOOL_DIR, 'lsl-anchor');
  if (!existsSync(binary) || statSync(binary).mtimeMs < statSync(SOURCE).mtimeMs) {
    execFileSync('gcc', ['-O2', '-o', binary, SOURCE, '-ldl']);
  }
  return binary;
}

/**
 * A HOME and LSLAPICFG keeping liblsl on loopback, on ports of this run's own (liblsl 1.16 reads
 * LSLAPICFG, 1.12 only ~/lsl_api/lsl_api.cfg).
 */
function lslEnv() {
  const home = mkdtempSync(join(tmpdir(), 'headsetd-bench-lsl-'));
  mkdirSync(join(home, 'lsl_api'));
  const file = join(home, 'lsl_api', 'lsl_api.cfg');
  const base = 33_000 + Math.floor(Math.random() * 400) * 20;
  writeFileSync(
    file,
    `[ports]\nIPv6 = disable\nMulticastPort = ${base + 19}\nBasePort = ${base}\nPortRange = 18\n[multicast]\nResolveScope = machine\n`,
  );
  return { home, env: { ...process.env, HOME: home, LSLAPICFG: file } };
}

/** Runs the tool with `args`, resolving with its stdout once it exits (rejecting on a failure). */
function run(binary, args, env, onReady) {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    let ready = false;
    child.stdout.on('data', (chunk) => {
      out += chunk.toString('utf8');
      if (!ready && out.includes('ready\n')) {
        ready = true;
        onReady?.();
      }
    });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`lsl-anchor ${args[1]} exited with ${code}: ${out.slice(0, 200)}`));
    });
  });
}

/** The first number after `key` on its line of `out`. */
function field(out, key) {
  const match = new RegExp(`^${key} ([0-9.]+)`, 'm').exec(out);
  if (match === null) throw new Error(`lsl-anchor printed no ${key}: ${out.slice(0, 200)}`);
  return Number(match[1]);
}

/**
 * liblsl's outlet → inlet latency: an outlet pushing `rows`-sample chunks of `channels` float32
 * channels at `rate`, each chunk's last sample stamped when it is pushed, read by `inlets` inlet
 * processes for `seconds` after `warmup`. Answers every chunk's latency (ms) of every inlet.
 */
export async function lslLatency({ lib, channels, rate, rows, seconds, warmup, inlets }) {
  const binary = tool();
  const { home, env } = lslEnv();
  const name = `headsetd-bench-${process.pid}`;
  try {
    const chunks = [];
    const outlet = run(
      binary,
      [lib, 'outlet', name, String(channels), String(rate), String(rows), String(seconds + warmup + 1)],
      env,
      () => {
        for (let i = 0; i < inlets; i++) {
          chunks.push(run(binary, [lib, 'inlet', name, String(rows), String(seconds), String(warmup)], env));
        }
      },
    );
    await outlet;
    const outs = await Promise.all(chunks);
    return outs.flatMap((out) => {
      const line = out.split('\n').find((l) => l.startsWith('latencies'));
      if (line === undefined)
        throw new Error(`an lsl-anchor inlet printed no latencies: ${out.slice(0, 200)}`);
      return line.split(' ').slice(1).map(Number);
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * CPU seconds per second that liblsl's outlet spends handing `rows`-sample chunks of `channels`
 * float32 channels at `rate` to one inlet, above the same pacing with no liblsl (the outlet
 * process's CPU, every liblsl thread included; the inlet's is the reader's, not counted).
 */
export async function lslOutletCpu({ lib, channels, rate, rows, seconds }) {
  const binary = tool();
  const { home, env } = lslEnv();
  const name = `headsetd-bench-cpu-${process.pid}`;
  try {
    let inlet;
    const outletOut = await run(
      binary,
      [lib, 'outlet', name, String(channels), String(rate), String(rows), String(seconds)],
      env,
      () => {
        inlet = run(binary, [lib, 'inlet', name, String(rows), String(seconds + 5), '0'], env).catch(
          () => '',
        );
      },
    );
    const idleOut = await run(binary, [lib, 'idle', String(rate), String(rows), String(seconds)], env);
    await inlet;
    const outlet = field(outletOut, 'cpu') / seconds;
    const idle = field(idleOut, 'cpu') / seconds;
    return { outlet, idle, above: outlet - idle };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
