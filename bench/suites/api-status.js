/**
 * api.system-status.vs-node: GET /system/status of the service started as a user starts it
 * (default logging, fresh data dir), beside 10 running streams (bench/lib/ten-streams.js), under
 * `wrk -t2 -c20` (bench/lib/wrk.js), against a bare node:http server answering the same bytes
 * (the service's own answer, saved before the rounds) in its own process, beside the same streams.
 * A bare Fastify server answering the same bytes takes its turn in every round too: the framework
 * the service is built on, so that the report says how much of the gap is Fastify's own.
 * ROUNDS rounds of ROUND_S-second runs of each server in turn (the order rotated every round),
 * after a warm-up of each; the ratio is the median of the rounds' requests/s ratios.
 *
 * Why this many short rounds: this machine's speed moves by 30–40 % within seconds, so one round's
 * ratio falls anywhere in 0.5–1.8 × while the median of five 3-second pairs still moved by about
 * ± 0.1 from run to run (docs/performance.md §GET /system/status: what is left). Fifteen 2-second
 * rounds keep each ratio's two runs close in time and halve that spread.
 *
 * Budgets: ≥ 0.8 × bare node:http (0.7 until 2026-11-30), and headsetd's p99 ≤ 3 ms (the median
 * of its rounds' p99, beside the bare servers').
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL } from 'node:url';
import { requestJson } from '../lib/http-load.js';
import { median } from '../lib/measure.js';
import { result } from '../lib/result.js';
import { startService } from '../lib/service.js';
import { tenStreams } from '../lib/ten-streams.js';
import { wrk } from '../lib/wrk.js';

const BARE = new URL('../lib/bare-server.mjs', import.meta.url).pathname;
const ROUNDS = 15;
const ROUND_S = 2;
const SETTLE_MS = 3000;

/** A bare server (`kind`: node or fastify, bench/lib/bare-server.mjs) answering `bodyFile`'s bytes on GET /status. */
async function bareServer(kind, bodyFile) {
  const child = spawn(process.execPath, [BARE, kind, bodyFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk.toString('utf8');
      const match = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (match !== null) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the bare ${kind} server exited with ${code}`)));
  });
  return {
    url: `${url}/status`,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

export async function runApiStatus(report) {
  const service = await startService({ logLevel: null });
  const dir = mkdtempSync(join(tmpdir(), 'headsetd-bench-status-'));
  let streams;
  const bare = [];
  try {
    streams = await tenStreams(service);
    await sleep(SETTLE_MS);
    const { body } = await requestJson(service.url, 'GET', '/system/status');
    const bodyFile = join(dir, 'status.json');
    writeFileSync(bodyFile, JSON.stringify(body));
    const node = await bareServer('node', bodyFile);
    bare.push(node);
    const fastify = await bareServer('fastify', bodyFile);
    bare.push(fastify);
    const urls = { ours: `${service.url}/system/status`, node: node.url, fastify: fastify.url };
    const names = Object.keys(urls);
    for (const name of names) await wrk(urls[name], { durationS: 1 });
    const rounds = [];
    for (let i = 0; i < ROUNDS; i++) {
      const round = {};
      for (const name of [...names.slice(i % names.length), ...names.slice(0, i % names.length)]) {
        round[name] = await wrk(urls[name], { durationS: ROUND_S });
      }
      rounds.push(round);
    }
    const of = (name, figure) => median(rounds.map((r) => r[name][figure]));
    const ratio = (a, b) => median(rounds.map((r) => r[a].perSecond / r[b].perSecond));
    const r = result({
      id: 'api.system-status.vs-node',
      title: 'GET /system/status beside 10 streams under wrk -t2 -c20 vs a bare node:http server, same bytes',
      ratio: ratio('ours', 'node'),
      ratioOf: `requests/s of headsetd ÷ of bare node:http (wrk -t2 -c20, ${ROUNDS} rotating rounds of ${ROUND_S} s, median)`,
      min: 0.8,
      budgets: [{ figure: 'headsetdP99Ms', max: 3 }],
      absolute: {
        headsetdPerSecond: of('ours', 'perSecond'),
        bareNodePerSecond: of('node', 'perSecond'),
        bareFastifyPerSecond: of('fastify', 'perSecond'),
        headsetdToBareFastify: ratio('ours', 'fastify'),
        bareFastifyToBareNode: ratio('fastify', 'node'),
        headsetdP50Ms: of('ours', 'p50'),
        headsetdP99Ms: of('ours', 'p99'),
        bareNodeP99Ms: of('node', 'p99'),
        bareFastifyP99Ms: of('fastify', 'p99'),
        failures: rounds.reduce((sum, r) => sum + names.reduce((s, n) => s + r[n].failures, 0), 0),
        budgetP99Ms: 3,
        serviceCpuSeconds: service.cpuSeconds() ?? Number.NaN,
      },
    });
    report(r);
    return [r];
  } finally {
    streams?.close();
    for (const server of bare) await server.stop();
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
