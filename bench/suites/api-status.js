/**
 * api.system-status.vs-node: GET /system/status of the service started as a user starts it
 * (default logging, fresh data dir), beside 10 running streams (bench/lib/ten-streams.js), under
 * `wrk -t2 -c20` (bench/lib/wrk.js), against a bare node:http server answering the same bytes
 * (the service's own answer, saved before the rounds) in its own process, beside the same streams.
 * ROUNDS pairs of ROUND_S-second runs, alternately (order swapped every pair), after a warm-up of
 * each; the ratio is the median of the pairs' requests/s ratios. Budgets: ≥ 0.8 (0.7 until
 * 2026-11-30), and headsetd's p99 ≤ 3 ms (the median of its rounds' p99, beside the bare server's).
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
const ROUNDS = 5;
const ROUND_S = 3;
const SETTLE_MS = 3000;

/** The bare node:http server answering `bodyFile`'s bytes on GET /status. */
async function bareNode(bodyFile) {
  const child = spawn(process.execPath, [BARE, 'node', bodyFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk.toString('utf8');
      const match = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (match !== null) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the bare server exited with ${code}`)));
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

export async function runApiStatus(report) {
  const service = await startService({ logLevel: null });
  const dir = mkdtempSync(join(tmpdir(), 'headsetd-bench-status-'));
  let streams;
  let bare;
  try {
    streams = await tenStreams(service);
    await sleep(SETTLE_MS);
    const { body } = await requestJson(service.url, 'GET', '/system/status');
    const bodyFile = join(dir, 'status.json');
    writeFileSync(bodyFile, JSON.stringify(body));
    bare = await bareNode(bodyFile);
    const ours = `${service.url}/system/status`;
    const theirs = `${bare.url}/status`;
    await wrk(ours, { durationS: 1 });
    await wrk(theirs, { durationS: 1 });
    const pairs = [];
    for (let i = 0; i < ROUNDS; i++) {
      const first = i % 2 === 0 ? ours : theirs;
      const a = await wrk(first, { durationS: ROUND_S });
      const b = await wrk(first === ours ? theirs : ours, { durationS: ROUND_S });
      pairs.push(first === ours ? { ours: a, bare: b } : { ours: b, bare: a });
    }
    const r = result({
      id: 'api.system-status.vs-node',
      title: 'GET /system/status beside 10 streams under wrk -t2 -c20 vs a bare node:http server, same bytes',
      ratio: median(pairs.map((p) => p.ours.perSecond / p.bare.perSecond)),
      ratioOf: 'requests/s of headsetd ÷ of bare node:http (wrk -t2 -c20, alternating rounds, median)',
      min: 0.8,
      budgets: [{ figure: 'headsetdP99Ms', max: 3 }],
      absolute: {
        headsetdPerSecond: median(pairs.map((p) => p.ours.perSecond)),
        bareNodePerSecond: median(pairs.map((p) => p.bare.perSecond)),
        headsetdP50Ms: median(pairs.map((p) => p.ours.p50)),
        headsetdP99Ms: median(pairs.map((p) => p.ours.p99)),
        bareNodeP99Ms: median(pairs.map((p) => p.bare.p99)),
        failures: pairs.reduce((sum, p) => sum + p.ours.failures + p.bare.failures, 0),
        budgetP99Ms: 3,
        serviceCpuSeconds: service.cpuSeconds() ?? Number.NaN,
      },
    });
    report(r);
    return [r];
  } finally {
    streams?.close();
    await bare?.stop();
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
